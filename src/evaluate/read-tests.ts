/**
 * Test counts of one test command: the whole output, or each part of an `&&` chain on its own (the
 * failures of each runner attributed to it; paths printed after a `cd` resolved against that folder).
 */
import path from "node:path";
import type { ChainSegment } from "./chain.js";
import { programOf } from "./chain.js";
import { parseDiagnostics, parseTests } from "./parsers/index.js";
import { MAX_CASES } from "./parsers/tests/common.js";
import { isChecker } from "./runner-hint.js";
import { type CommandOutput, type Diagnostic, STOPPED_FORMAT, type TestCounts, type TestFailure } from "./types.js";

/** Re-roots a worktree-relative-to-`dir` path onto the worktree; absolute paths inside `root` become relative. */
function reroot(file: string | undefined, dir: string, root: string): string | undefined {
  if (file === undefined || dir === "") return file;
  if (path.posix.isAbsolute(file)) return file === root || file.startsWith(`${root}/`) ? path.posix.relative(root, file) : file;
  return path.posix.normalize(path.posix.join(dir, file));
}

function parseIn(out: CommandOutput, root: string, dir: string, junitXml?: string, goModule?: string): TestCounts | null {
  const cwd = dir === "" ? root : path.posix.join(root, dir);
  const t = parseTests(out, { cwd, ...(junitXml !== undefined ? { junitXml } : {}), ...(goModule !== undefined && dir === "" ? { goModule } : {}) });
  if (!t || dir === "") return t;
  return { ...t, failures: t.failures.map((f) => ({ ...f, ...(f.file !== undefined ? { file: reroot(f.file, dir, root)! } : {}) })) };
}

const add = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b);

/** Parts that only set up the shell for the next ones: they never print test results. */
const SHELL_SETUP_RE = /^(?:cd|pushd|popd|export|unset|set|source|\.|true|:|ulimit|umask)$/;

/**
 * Whether the tests of this chain are named after their runner (`ava: adds`). Decided from the command
 * alone, so that a test keeps its name whichever parts ran: when `ava && uvu` stops after a failing
 * AVA, AVA's tests must not be renamed (they would read as gone, and as new tests beside them).
 */
export function prefixesRunners(parts: string[]): boolean {
  return parts.filter((p) => !SHELL_SETUP_RE.test(programOf(p))).length > 1;
}

/**
 * Merges the counts of the parts. A part whose output holds no test results (a linter, a type check,
 * a `cd`) adds nothing when it passed and one failure named after it when it failed. `parts` is the
 * whole chain: the parts after a failing one never ran, and are listed in `notRun`.
 */
export function readChainTests(
  segs: ChainSegment[],
  root: string,
  junitXml?: string,
  goModule?: string,
  parts: string[] = segs.map((s) => s.part),
): TestCounts | null {
  const read: { seg: ChainSegment; t: TestCounts | null }[] = segs.map((seg, i) => ({
    seg,
    t: parseIn(seg.output, root, seg.dir, i === segs.length - 1 ? junitXml : undefined, goModule),
  }));
  const runners = read.filter((r) => r.t !== null);
  if (runners.length === 0) return stoppedBeforeTests(segs, parts);
  const prefixed = prefixesRunners(parts);
  let passed: number | null = 0;
  let failed: number | null = 0;
  let skipped: number | null = 0;
  let total: number | null = 0;
  let testsRan: number | null = 0;
  let units: TestCounts["units"];
  const failures: TestFailure[] = [];
  const formats: string[] = [];
  const notes: string[] = [];
  for (const { seg, t } of read) {
    const prog = programOf(seg.part);
    if (t === null) {
      if (seg.exitCode === 0) continue;
      failed = add(failed, 1);
      total = add(total, 1);
      testsRan = add(testsRan, 1);
      failures.push({
        name: `(${prog} exited ${seg.exitCode ?? "killed"})`,
        message: `"${seg.part}" failed before or outside the tests; its output is in trm_read_log (command "test").`,
      });
      continue;
    }
    passed = add(passed, t.passed);
    failed = add(failed, t.failed);
    skipped = add(skipped, t.skipped);
    total = add(total, t.total);
    testsRan = add(testsRan, t.units ? (t.testsRan ?? null) : add(t.passed, t.failed));
    units ??= t.units;
    formats.push(t.format);
    if (t.note) notes.push(`${prog}: ${t.note}`);
    failures.push(
      ...(prefixed
        ? t.failures.map((f) => ({ ...f, name: `${prog}: ${f.name}`, ...(f.test !== undefined ? { test: `${prog}: ${f.test}` } : {}) }))
        : t.failures),
    );
  }
  const out: TestCounts = { passed, failed, skipped, total, failures, format: formats.join("+") };
  // A part counted in assertions or subtests: the chain's tests are counted apart from its units.
  if (units && testsRan !== null) Object.assign(out, { units, testsRan });
  if (notes.length) out.note = notes.join(" ");
  // Tests are tracked by name only when every runner of the chain named its tests, named as their failures are.
  if (runners.every((r) => r.t!.cases)) {
    const cases = runners.flatMap(({ seg, t }) => (prefixed ? t!.cases!.map((c) => ({ ...c, name: `${programOf(seg.part)}: ${c.name}` })) : t!.cases!));
    if (cases.length <= MAX_CASES) out.cases = cases;
  }
  const notRun = parts.slice(segs.length).filter((p) => !SHELL_SETUP_RE.test(programOf(p)));
  if (notRun.length) out.notRun = notRun;
  return out;
}

/**
 * A checker that failed before any test runner started (`xo && ava && tsd` with xo failing): no test
 * ran, and the chain's output is xo's, not an unreadable test report. The checker is the one failure,
 * named after it, and the parts after it did not run. Null when a part that ran may have been a runner
 * whose output could not be read, or when nothing was cut short.
 */
function stoppedBeforeTests(segs: ChainSegment[], parts: string[]): TestCounts | null {
  const last = segs[segs.length - 1];
  if (!last || last.exitCode === 0 || segs.length >= parts.length) return null;
  if (!segs.every((s) => isChecker(programOf(s.part)) || SHELL_SETUP_RE.test(programOf(s.part)))) return null;
  const notRun = parts.slice(segs.length).filter((p) => !SHELL_SETUP_RE.test(programOf(p)));
  if (notRun.length === 0) return null;
  const exit = last.exitCode ?? "killed";
  const prog = programOf(last.part);
  const message = `"${last.part}" failed and stopped the chain before ${notRun.join(", ")}: no test ran. Fix what ${prog} reports (listed with the errors), or give it as lintCmd or a check.`;
  // No test output was read: the counts are the failing part alone, and no earlier test is seen passing.
  return { passed: 0, failed: 1, skipped: 0, total: 1, failures: [{ name: `(${prog} exited ${exit})`, message }], format: STOPPED_FORMAT, cases: [], notRun };
}

/** Diagnostics of each part, with paths resolved against the folder the part ran in. */
export function readChainDiagnostics(segs: ChainSegment[], root: string): Diagnostic[] {
  return segs.flatMap((seg) => {
    if (seg.exitCode === 0) return [];
    const cwd = seg.dir === "" ? root : path.posix.join(root, seg.dir);
    return parseDiagnostics(seg.output.all, { cwd }).map((d) => (d.file !== undefined ? { ...d, file: reroot(d.file, seg.dir, root)! } : d));
  });
}
