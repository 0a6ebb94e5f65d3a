/**
 * The reference rules by name (test-identity.ts judgeTests): each test of the reference that is now skipped or
 * gone is lost, tests outside it are added (their passes left out), and a file that failed to load at the reference
 * is replaced by its own tests once it loads.
 */
import { programOf } from "./chain.js";
import type { AddedTests, DroppedTest, KnownCounts, LostTest, TestIdentity } from "./test-identity.js";
import { type TestCase, type TestCounts, unitsOf } from "./types.js";

const MAX_ADDED_NAMED = 5;
/** Lost and dropped tests listed at most (the counts hold them all). */
export const MAX_LOST_LISTED = 200;

/** The part of the chain that did not run and whose tests are named `<program>: ...`, if `name` is one of them. */
function notRunPart(name: string, notRun: string[] | undefined): string | undefined {
  return notRun?.find((p) => name.startsWith(`${programOf(p)}: `));
}

export function byName(
  current: KnownCounts,
  cases: TestCase[],
  ref: { step: number; tests: KnownCounts },
  step: number,
  earlier: { step: number; tests: TestCounts }[],
): Omit<TestIdentity, "reference"> {
  const refCases = ref.tests.cases!;
  const nowCases = new Map(cases.map((c) => [c.name, c]));
  const now = new Map(cases.map((c) => [c.name, c.status]));
  const ranAt = new Map<string, TestCase>();
  for (const c of refCases) if (c.status !== "skipped") ranAt.set(c.name, c);
  const ran = new Set(ranAt.keys());
  const inUnits = !!current.units || !!ref.tests.units;
  const known = new Set(refCases.map((c) => c.name));
  // A test file or module that failed to load at the reference loads now when its own tests run (a right fix of a
  // require typo scored 0: h31): where the output says a test's file (a report's file, pytest's `file::test`,
  // unittest's `module.Class.test`), tests of that file; else more tests than the reference's others, also when
  // their names are another file's too (h33). The file reported under its own name, passing, ran no test of it
  // (h34: the code under test exiting 0 as the file loads). pytest reports a file only while it fails to collect
  // (load "collect", in its own output and its JUnit report): once it does not, it loaded, whether it holds a test
  // that runs or not (a code module under --doctest-modules, a test file whose tests are deselected: h36). Not
  // replaced, it is missing; a file deleted has lost its mark (session).
  const ranOthers = refCases.filter((c) => !c.load && c.status !== "skipped").length;
  const ranNow = cases.filter((c) => c.status !== "skipped" && !c.load);
  const saysFiles = current.format === "pytest" || current.format === "unittest" || ranNow.some((c) => c.file !== undefined);
  const ofFile = (c: TestCase, load: string) => c.file === load || c.name.startsWith(`${load}::`) || c.name.startsWith(`${load}.`);
  // A skip the reference did not have may be the file's (a module-level skip in the code it imports: h37): then
  // its own tests must run.
  const newSkip = cases.some((c) => c.status === "skipped" && !known.has(c.name));
  const replaced = (load: TestCase): boolean =>
    !nowCases.has(load.name) && ((load.load === "collect" && !newSkip) || (saysFiles ? ranNow.some((c) => ofFile(c, load.name)) : ranNow.length > ranOthers));
  const replacedLoads = refCases.filter((c) => c.load && replaced(c)).map((c) => c.name);
  // The tests that take a reloaded file's place are the reference's: by files where the output says them and the
  // reference ran other tests (others added beside it are new, their passes left out: h36), else all of them (a
  // run that stopped at the files that failed to load ran nothing else to tell them from).
  const inPlace = (c: TestCase): boolean => replacedLoads.length > 0 && (saysFiles && ranOthers > 0 ? replacedLoads.some((l) => ofFile(c, l)) : true);
  const lost: LostTest[] = [];
  let padded = 0;
  let maps: (Map<string, TestCase["status"]> | undefined)[] | undefined;
  for (const [name, was] of ranAt) {
    if (was.load && replaced(was)) continue;
    const c = was.load && nowCases.get(name)?.status === "passed" ? undefined : nowCases.get(name);
    const status = c?.status;
    if (c && (status === "passed" || status === "failed")) {
      if (!inUnits) continue;
      const u = unitsOf(c);
      const w = unitsOf(was);
      // Assertions of a test that still runs, newly skipped: as a skipped test, they count as failing.
      const skippedMore = u.skipped - w.skipped;
      if (skippedMore > 0) lost.push({ name, how: "skipped", since: step, units: skippedMore, skippedUnits: skippedMore, partly: true });
      // Passing units beyond what the test ran at the reference are padding, not progress (a failing
      // one added is no pass to take back).
      padded += Math.max(0, Math.min(u.passed - w.passed, u.passed + u.failed - (w.passed + w.failed)));
      continue;
    }
    const how = status === "skipped" ? "skipped" : "missing";
    maps ??= earlier.map((e) => (e.tests.cases ? new Map(e.tests.cases.map((x) => [x.name, x.status])) : undefined));
    const part = how === "missing" ? notRunPart(name, current.notRun) : undefined;
    const w = unitsOf(was);
    const units = Math.max(1, w.passed + w.failed);
    const skippedUnits = c ? unitsOf(c).skipped : 0;
    const weights = { ...(units !== 1 ? { units } : {}), ...(skippedUnits !== (how === "skipped" ? 1 : 0) ? { skippedUnits } : {}) };
    lost.push({ name, how, since: lostSince(name, how, step, earlier, maps), ...(part ? { notRun: part } : {}), ...weights });
  }
  lost.sort((a, b) => a.since - b.since || a.name.localeCompare(b.name));
  const added: AddedTests = { passed: 0, failed: 0, skipped: 0, names: [] };
  for (const [name, c] of nowCases) {
    // Skipped at the reference and still skipped is no news. A file that failed to load, now passing under its own
    // name, is no test of the reference's: its pass is left out as a new test's.
    const filePassing = c.status === "passed" && !!ranAt.get(name)?.load;
    if ((ran.has(name) && !filePassing) || (c.status === "skipped" && known.has(name)) || inPlace(c)) continue;
    const u = unitsOf(c);
    added.passed += u.passed;
    added.failed += u.failed;
    added.skipped += u.skipped;
    if (added.names.length < MAX_ADDED_NAMED) added.names.push(name);
  }
  // Bounded by the counts, so that rawCounts undoes exactly what adjustCounts did even when a reporter's
  // names and tallies disagree.
  added.passed = Math.min(added.passed, current.passed);
  added.skipped = Math.min(added.skipped, current.skipped);
  const out: Omit<TestIdentity, "reference"> = { lost, extraSkipped: 0 };
  if (added.passed + added.failed + added.skipped > 0) out.added = added;
  padded = Math.min(padded, current.passed - added.passed);
  if (padded > 0) out.padded = padded;
  const dropped = droppedSinceReference(now, known, ref.step, step, earlier);
  if (dropped.length) out.dropped = dropped;
  return out;
}

/**
 * Tests outside the reference that ran at a later step and are now skipped or absent: a candidate that
 * adds a test and later deletes it is not scored for it (it was never part of the yardstick), but the
 * feedback names it.
 */
function droppedSinceReference(
  now: Map<string, TestCase["status"]>,
  known: Set<string>,
  refStep: number,
  step: number,
  earlier: { step: number; tests: TestCounts }[],
): DroppedTest[] {
  const firstRan = new Map<string, number>();
  for (const e of earlier) {
    if (e.step <= refStep || !e.tests.cases) continue;
    for (const c of e.tests.cases) if (c.status !== "skipped" && !known.has(c.name) && !firstRan.has(c.name)) firstRan.set(c.name, e.step);
  }
  const out: DroppedTest[] = [];
  let maps: (Map<string, TestCase["status"]> | undefined)[] | undefined;
  for (const [name, added] of firstRan) {
    const st = now.get(name);
    if (st === "passed" || st === "failed") continue;
    const how = st === "skipped" ? "skipped" : "missing";
    maps ??= earlier.map((e) => (e.tests.cases ? new Map(e.tests.cases.map((c) => [c.name, c.status])) : undefined));
    out.push({ name, how, added, since: lostSince(name, how, step, earlier, maps) });
    if (out.length >= MAX_LOST_LISTED) break;
  }
  return out.sort((a, b) => a.since - b.since || a.name.localeCompare(b.name));
}

/** Walks back while the earlier steps show the test in the same state (steps without names are passed over). */
function lostSince(
  name: string,
  how: LostTest["how"],
  step: number,
  earlier: { step: number }[],
  maps: (Map<string, TestCase["status"]> | undefined)[],
): number {
  let since = step;
  for (let i = earlier.length - 1; i >= 0; i--) {
    const m = maps[i];
    if (!m) continue;
    const st = m.get(name);
    const same = how === "missing" ? st === undefined : st === "skipped";
    if (!same) break;
    since = earlier[i]!.step;
  }
  return since;
}
