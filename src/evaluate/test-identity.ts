/**
 * Tests tracked by name across a session, so that a candidate cannot raise its score by skipping,
 * `.only`-ing away, deleting or adding tests. Pure functions over the parsers' test lists.
 *
 * The reference is the tests that ran (passed or failed) at the first point of the current history that
 * ran any: the baseline when preflight ran, else the first step. It is fixed for the history: tests seen
 * at later steps never join it, so padding at step N does not become the yardstick of step N+1.
 * - A reference test that is now skipped or absent counts as failing (absent also when the part of an
 *   `&&` chain that runs it never ran because an earlier part failed).
 * - A test outside the reference (added by a candidate, or skipped at the reference and now run) counts
 *   only while it fails: it can lower the score, never raise it. A test written before its fix (TDD)
 *   lowers the step that adds it and costs nothing once the fix makes it pass. When it later goes
 *   missing or is skipped, it is named, not scored.
 * - A test that was only ever skipped counts for nothing, so a suite with a skip at the baseline can
 *   still reach 1.0.
 * When the output names only the failing tests (counts only: `pytest -q`), nothing is invented: skips beyond the fewest earlier
 * skips count as failing, passes beyond the reference's number of tests are not counted, and each test
 * fewer than the reference ran counts as failing (missing).
 */
import { programOf } from "./chain.js";
import { STOPPED_FORMAT, type TestCase, type TestCounts, type TestFailure } from "./types.js";
import type { UnconfirmedTest } from "./unconfirmed.js";

export interface LostTest {
  name: string;
  how: "missing" | "skipped";
  /** First step of the current run of steps in which it was missing (or skipped). */
  since: number;
  /** The part of the `&&` chain that runs it and did not run at this step. */
  notRun?: string;
}

/** A test that did not run at the reference, ran at a later step, and is now skipped or absent (named, not scored). */
export interface DroppedTest {
  name: string;
  how: "missing" | "skipped";
  /** The first step at which it ran. */
  added: number;
  since: number;
}

/** What one earlier evaluated step knew about its tests. */
export interface TestHistoryPoint {
  step: number;
  tests: TestCounts | null | undefined;
}

export interface TestIdentity {
  /** Tests that ran at an earlier step and are now skipped or absent: counted as failing. */
  lost: LostTest[];
  /** Counts-only output: skips beyond the fewest of earlier steps, counted as failing. */
  extraSkipped: number;
  /** Counts-only output: how many fewer tests ran than at the reference, counted as failing. */
  missing?: number;
  /** The first step of the current run of steps that ran fewer tests than the reference. */
  missingSince?: number;
  /** Parts of the test command's `&&` chain that did not run at this step. */
  notRun?: string[];
  /** Named output: tests added after the reference that are now skipped or absent (not scored). */
  dropped?: DroppedTest[];
  /** Output that counts no passes: earlier failing tests no longer reported after their file changed (unconfirmed.ts). */
  unconfirmed?: UnconfirmedTest[];
  /** Records written before a shortfall was scored: said, never counted (rawCounts leaves it alone). */
  fewer?: number;
  fewerThanStep?: number;
  /** The step whose tests are the reference (absent while no earlier point ran a test). */
  reference?: number;
  /** Named output: tests outside the reference. Their passes and skips are left out of the counts. */
  added?: AddedTests;
  /** Counts-only output: passes beyond the reference's number of tests, left out of the counts. */
  capped?: number;
  /** How many tests ran at the reference (counts-only output). */
  referenceRan?: number;
}

export interface AddedTests {
  passed: number;
  failed: number;
  skipped: number;
  /** The first few names, for the feedback. */
  names: string[];
}

/** Counts the output showed in full: only those can be compared across steps (unknown is null). */
export type KnownCounts = TestCounts & { passed: number; failed: number; skipped: number; total: number };

export function knownCounts(t: TestCounts | null | undefined): t is KnownCounts {
  return !!t && t.passed !== null && t.failed !== null && t.skipped !== null && t.total !== null;
}

/** Whether a point ran tests and showed them: a chain stopped by a checker before its runners ran none. */
export function ranTests(t: TestCounts | null | undefined): t is KnownCounts {
  return knownCounts(t) && t.passed + t.failed > 0 && t.format !== STOPPED_FORMAT;
}

/** Marks the failures this module added, so an evaluation can be judged again against another history. */
export const LOST_MARK = "[counted as failing] ";

const MAX_LOST_LISTED = 200;

/**
 * Compares this step's tests with the earlier steps' (oldest first). Returns null when there is
 * nothing to judge: the test command did not run or its output could not be read.
 */
export function judgeTests(current: TestCounts | null | undefined, step: number, earlier: TestHistoryPoint[]): TestIdentity | null {
  if (!knownCounts(current)) return null;
  // A chain stopped before its runners showed no tests: it is no yardstick (of tests or of skips).
  const readable = earlier.filter((e): e is { step: number; tests: KnownCounts } => knownCounts(e.tests) && e.tests.format !== STOPPED_FORMAT);
  if (readable.length === 0) return { lost: [], extraSkipped: 0 };
  // Without a point that ran tests there is nothing new tests could dilute: they all count.
  const ref = readable.find((e) => ranTests(e.tests));
  const notRun = current.notRun?.length ? { notRun: current.notRun } : {};
  if (ref && current.cases && ref.tests.cases) return { ...byName(current, current.cases, ref, step, readable), ...notRun, reference: ref.step };
  // Counts only: the fewest skips of the earlier steps and the reference's number of tests are the yardstick.
  let minSkipped = Infinity;
  for (const e of readable) minSkipped = Math.min(minSkipped, e.tests.skipped);
  const extraSkipped = Math.max(0, current.skipped - minSkipped);
  const id: TestIdentity = { lost: [], extraSkipped };
  if (!ref) return id;
  const refRan = ref.tests.passed + ref.tests.failed;
  const ranOf = (t: KnownCounts) => t.passed + t.failed + Math.max(0, t.skipped - minSkipped);
  const ranNow = ranOf(current);
  // Fewer tests than the reference: the missing ones (deleted, or in a part of the chain that never ran)
  // count as failing, since the step that began running fewer.
  const missing = Math.max(0, refRan - ranNow);
  if (missing > 0) {
    let since = step;
    for (let i = readable.length - 1; i >= 0; i--) {
      const e = readable[i]!;
      if (e.step <= ref.step || refRan - ranOf(e.tests) <= 0) break;
      since = e.step;
    }
    Object.assign(id, { missing, missingSince: since, referenceRan: refRan }, notRun);
  }
  // Unnamed tests beyond the reference's count may be new: assume they are the passing ones.
  const capped = Math.min(current.passed, Math.max(0, ranNow - refRan));
  if (capped > 0) Object.assign(id, { capped, referenceRan: refRan });
  return { ...id, reference: ref.step };
}

const MAX_ADDED_NAMED = 5;

/** The part of the chain that did not run and whose tests are named `<program>: ...`, if `name` is one of them. */
function notRunPart(name: string, notRun: string[] | undefined): string | undefined {
  return notRun?.find((p) => name.startsWith(`${programOf(p)}: `));
}

function byName(current: KnownCounts, cases: TestCase[], ref: { step: number; tests: KnownCounts }, step: number, earlier: { step: number; tests: TestCounts }[]): Omit<TestIdentity, "reference"> {
  const refCases = ref.tests.cases!;
  const now = new Map(cases.map((c) => [c.name, c.status]));
  const ran = new Set<string>();
  for (const c of refCases) if (c.status !== "skipped") ran.add(c.name);
  const lost: LostTest[] = [];
  let maps: (Map<string, TestCase["status"]> | undefined)[] | undefined;
  for (const name of ran) {
    const status = now.get(name);
    if (status === "passed" || status === "failed") continue;
    const how = status === "skipped" ? "skipped" : "missing";
    maps ??= earlier.map((e) => (e.tests.cases ? new Map(e.tests.cases.map((c) => [c.name, c.status])) : undefined));
    const part = how === "missing" ? notRunPart(name, current.notRun) : undefined;
    lost.push({ name, how, since: lostSince(name, how, step, earlier, maps), ...(part ? { notRun: part } : {}) });
  }
  lost.sort((a, b) => a.since - b.since || a.name.localeCompare(b.name));
  const added: AddedTests = { passed: 0, failed: 0, skipped: 0, names: [] };
  const known = new Set(refCases.map((c) => c.name));
  for (const [name, status] of now) {
    // Skipped at the reference and still skipped is no news.
    if (ran.has(name) || (status === "skipped" && known.has(name))) continue;
    added[status]++;
    if (added.names.length < MAX_ADDED_NAMED) added.names.push(name);
  }
  // Bounded by the counts, so that rawCounts undoes exactly what adjustCounts did even when a reporter's
  // names and tallies disagree.
  added.passed = Math.min(added.passed, current.passed);
  added.skipped = Math.min(added.skipped, current.skipped);
  const out: Omit<TestIdentity, "reference"> = { lost, extraSkipped: 0 };
  if (added.passed + added.failed + added.skipped > 0) out.added = added;
  const dropped = droppedSinceReference(now, known, ref.step, step, earlier);
  if (dropped.length) out.dropped = dropped;
  return out;
}

/**
 * Tests outside the reference that ran at a later step and are now skipped or absent: a candidate that
 * adds a test and later deletes it is not scored for it (it was never part of the yardstick), but the
 * feedback names it.
 */
function droppedSinceReference(now: Map<string, TestCase["status"]>, known: Set<string>, refStep: number, step: number, earlier: { step: number; tests: TestCounts }[]): DroppedTest[] {
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
function lostSince(name: string, how: LostTest["how"], step: number, earlier: { step: number }[], maps: (Map<string, TestCase["status"]> | undefined)[]): number {
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

/** Whether the judgement changes the counts or has something to say. */
export function identityMatters(id: TestIdentity | null | undefined): id is TestIdentity {
  return !!id && (id.lost.length > 0 || id.extraSkipped > 0 || (id.missing ?? 0) > 0 || (id.fewer ?? 0) > 0 || !!id.added || (id.capped ?? 0) > 0 || !!id.dropped?.length);
}

/** How the judgement moves the raw counts (rawCounts applies the same numbers backwards). */
function shifts(id: TestIdentity): { lostSkipped: number; missing: number; droppedPassed: number; droppedSkipped: number } {
  return {
    lostSkipped: id.lost.filter((l) => l.how === "skipped").length + id.extraSkipped,
    missing: id.lost.filter((l) => l.how === "missing").length + (id.missing ?? 0),
    droppedPassed: (id.added?.passed ?? 0) + (id.capped ?? 0),
    droppedSkipped: id.added?.skipped ?? 0,
  };
}

/**
 * The counts this step is scored with: lost tests and extra skips move from skipped/absent to failed;
 * passes and skips of tests outside the reference are left out (their failures stay).
 */
export function adjustCounts(tests: KnownCounts, id: TestIdentity | null): KnownCounts {
  if (!identityMatters(id)) return tests;
  const d = shifts(id);
  const added: TestFailure[] = id.lost.slice(0, MAX_LOST_LISTED).map((l) => ({ name: l.name, message: `${LOST_MARK}${lostWords(l)}` }));
  if (id.extraSkipped > 0) added.push({ name: `(${id.extraSkipped} more skipped test${id.extraSkipped === 1 ? "" : "s"})`, message: `${LOST_MARK}more tests skipped than at earlier steps; the output names only the failing tests` });
  if ((id.missing ?? 0) > 0) added.push({ name: `(${id.missing} missing test${id.missing === 1 ? "" : "s"})`, message: `${LOST_MARK}${missingWords(id)}` });
  return {
    ...tests,
    passed: tests.passed - d.droppedPassed,
    failed: tests.failed + d.lostSkipped + d.missing,
    skipped: Math.max(0, tests.skipped - d.lostSkipped - d.droppedSkipped),
    total: tests.total + d.missing - d.droppedPassed - d.droppedSkipped,
    failures: [...tests.failures, ...added],
  };
}

/** Undoes adjustCounts (an evaluation reused from the cache is judged against the current history). */
export function rawCounts(tests: KnownCounts, id: TestIdentity | null | undefined): KnownCounts {
  if (!identityMatters(id)) return tests;
  const d = shifts(id);
  return {
    ...tests,
    passed: tests.passed + d.droppedPassed,
    failed: tests.failed - d.lostSkipped - d.missing,
    skipped: tests.skipped + d.lostSkipped + d.droppedSkipped,
    total: tests.total - d.missing + d.droppedPassed + d.droppedSkipped,
    failures: tests.failures.filter((f) => !f.message?.startsWith(LOST_MARK)),
  };
}

export function lostWords(l: Pick<LostTest, "how" | "since" | "notRun">): string {
  if (l.notRun) return `not run since step ${l.since}: \`${l.notRun}\` did not start after an earlier part failed`;
  return l.how === "missing" ? `went missing at step ${l.since}` : `skipped at step ${l.since}`;
}

/** Why a counts-only step is short of tests, and since when. */
function missingWords(id: TestIdentity): string {
  const n = id.missing ?? 0;
  const why = id.notRun?.length ? ` (the test command stopped before ${id.notRun.map((p) => `\`${p}\``).join(", ")}: an earlier part failed)` : "";
  return `${n} fewer test${n === 1 ? "" : "s"} ran than the ${id.referenceRan ?? "?"} at step ${id.reference ?? 0}, since step ${id.missingSince ?? "?"}${why}`;
}

/** One line for the feedback, or none. */
export function identityNotice(id: TestIdentity | null | undefined): string | undefined {
  if (!id) return undefined;
  const parts: string[] = [];
  if (id.lost.length > 0) {
    const shown = id.lost.slice(0, 8).map((l) => `${l.name} (${lostWords(l)})`);
    parts.push(`${id.lost.length} test${id.lost.length === 1 ? "" : "s"} that ran at an earlier step ${id.lost.length === 1 ? "is" : "are"} now skipped or missing and count${id.lost.length === 1 ? "s" : ""} as failing: ${shown.join(", ")}${id.lost.length > 8 ? ", …" : ""}`);
  }
  if (id.extraSkipped > 0) parts.push(`${id.extraSkipped} more test${id.extraSkipped === 1 ? "" : "s"} skipped than at earlier steps, counted as failing (the output names only the failing tests)`);
  if (id.added) parts.push(addedWords(id.added, id.reference ?? 0));
  if ((id.capped ?? 0) > 0) {
    const ref = id.reference ?? 0;
    parts.push(`${id.capped} pass${id.capped === 1 ? "" : "es"} beyond the ${id.referenceRan} tests that ran at step ${ref} ${id.capped === 1 ? "is" : "are"} not counted: the output names only the failing tests, so passing tests added since cannot be told apart and may not raise the score (a verbose or JSON reporter lets code-trm track tests by name)`);
  }
  if ((id.missing ?? 0) > 0) parts.push(`${missingWords(id)}: ${id.missing === 1 ? "it counts" : "they count"} as failing (the output names only the failing tests, so the missing ones cannot be named; a verbose or JSON reporter lets code-trm name them)`);
  if ((id.fewer ?? 0) > 0) parts.push(`${id.fewer} fewer test${id.fewer === 1 ? "" : "s"} ran than at step ${id.fewerThanStep} (the output names only the failing tests, so this is not scored; a verbose or JSON reporter lets code-trm track them)`);
  if (id.dropped?.length) {
    const n = id.dropped.length;
    const shown = id.dropped.slice(0, 8).map((d) => `${d.name} (added at step ${d.added}, ${lostWords(d)})`);
    parts.push(`${n} test${n === 1 ? "" : "s"} added after step ${id.reference ?? 0} ${n === 1 ? "is" : "are"} now skipped or missing (not scored: ${n === 1 ? "it was" : "they were"} not in the reference): ${shown.join(", ")}${n > 8 ? ", …" : ""}`);
  }
  return parts.length ? parts.join("; ") : undefined;
}

function addedWords(a: AddedTests, ref: number): string {
  const n = a.passed + a.failed + a.skipped;
  const verb = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
  const how = [a.passed > 0 ? verb(a.passed, "passes", "pass") : "", a.failed > 0 ? verb(a.failed, "fails", "fail") : "", a.skipped > 0 ? `${a.skipped} skipped` : ""].filter((x) => x).join(", ");
  const named = `${a.names.join(", ")}${n > a.names.length ? ", …" : ""}`;
  return `${n} new test${n === 1 ? "" : "s"} since step ${ref}: ${how}; tests that did not run at step ${ref} count toward the score only while they fail (${named})`;
}
