/**
 * `go test`: the text output (`--- FAIL: TestX (0.00s)`, `ok  \tpkg\t0.01s`, `FAIL\tpkg [build failed]`,
 * with `-v` also `=== RUN` and `--- PASS` lines) and `go test -json` (one event per line).
 *
 * Subtests are named `TestParent/case`. A parent is a test of its own, counted as go reports it (one
 * `--- PASS`/`--- FAIL` line and one -json result each, as gotestsum counts them): spf13/pflag's
 * `go test -json` has 185 results where its leaves are 181. A parent that failed because a subtest did is
 * named too, its message saying which subtests failed, at the first one's place.
 * A package that does not compile is one failure named after the package, with the first compiler
 * error as its message. Test names are qualified by their package so that two packages' `TestParse`
 * stay distinct when failures are compared across steps. With -v or -json every counted test is also
 * listed by that name (cases), so tests are tracked across steps by identity; a package that failed to
 * build or outside its tests is a failure with no test of its own.
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { boundMessage, isProjectPath, isRecord, normalizePath, str, tryJson } from "../util.js";
import { counts, failure, type TestInput } from "./common.js";

type Outcome = "pass" | "fail" | "skip";

interface TestState {
  name: string;
  outcome?: Outcome;
  output: string[];
}

interface PackageState {
  tests: Map<string, TestState>;
  outcome?: Outcome | "build-fail";
  output: string[];
}

const NON_VERBOSE_NOTE = "go test without -v or -json names only failing tests, so the passed count is unknown.";

// ---------------------------------------------------------------------------------------------
// Shared: turning per-package results into counts.

function summarize(
  format: string,
  packages: Map<string, PackageState>,
  buildErrors: Map<string, string[]>,
  cwd: string | undefined,
  verbose: boolean,
  goModule?: string,
): TestCounts {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let approximate = false;
  const failures: TestFailure[] = [];
  const cases: TestCase[] = [];
  for (const [pkg, state] of packages) {
    if (state.outcome === "build-fail") {
      failed++;
      const errs = buildErrors.get(pkg) ?? state.output;
      failures.push(buildFailure(pkg, errs, cwd));
      continue;
    }
    // The failing leaves under each parent, from each name's prefixes in one pass: comparing every
    // pair of names would be quadratic in the number of tests.
    const failingUnder = new Map<string, TestState[]>();
    for (const t of state.tests.values()) {
      if (t.outcome !== "fail") continue;
      for (let k = t.name.indexOf("/"); k >= 0; k = t.name.indexOf("/", k + 1)) {
        const prefix = t.name.slice(0, k);
        const list = failingUnder.get(prefix) ?? [];
        list.push(t);
        failingUnder.set(prefix, list);
      }
    }
    let failedHere = 0;
    for (const t of state.tests.values()) {
      if (t.outcome === "pass") passed++;
      else if (t.outcome === "skip") skipped++;
      else if (t.outcome === "fail") {
        failed++;
        failedHere++;
        failures.push(testFailure(pkg, t, cwd, goModule, failingUnder.get(t.name)));
      }
      if (t.outcome) cases.push({ name: `${pkg}.${t.name}`, status: t.outcome === "pass" ? "passed" : t.outcome === "skip" ? "skipped" : "failed" });
    }
    if (state.outcome === "fail" && failedHere === 0) {
      // The package failed outside any test: TestMain, init, a timeout, a panic in a goroutine.
      failed++;
      failures.push(failure(pkg, boundMessage(state.output.filter((l) => !/^(FAIL|ok)\b/.test(l.trim())).join("\n")), panicLocation(state.output, cwd)));
    } else if (state.outcome === "pass" && state.tests.size === 0 && !verbose) {
      // Without -v a passing package prints one line and no test names.
      passed++;
      approximate = true;
    }
  }
  // A non-verbose failing package hides its passing tests too.
  if (!verbose && failed > 0) approximate = true;
  // `ok  pkg` is a package, not one passing test: what the output does not show is unknown.
  if (approximate) return counts(format, { passed: null, failed, skipped: null, total: null }, failures, NON_VERBOSE_NOTE);
  return counts(format, { passed, failed, skipped }, failures, undefined, cases);
}

const SUBTESTS_LISTED = 3;

function testFailure(pkg: string, t: TestState, cwd?: string, goModule?: string, failingSubtests: TestState[] = []): TestFailure {
  const lines = t.output.filter((l, k) => {
    const s = l.trim();
    if (s === "" || /^(=== (RUN|PAUSE|CONT|NAME)|--- (FAIL|PASS|SKIP):)/.test(s) || s === "FAIL" || s === "PASS") return false;
    // A recovered panic is printed twice ("panic: x [recovered]" then "\tpanic: x").
    const prev = k > 0 ? t.output[k - 1]!.trim() : "";
    return !(prev.endsWith(" [recovered]") && prev.slice(0, -" [recovered]".length) === s);
  });
  // A panic's goroutine dump is long and only its project frame matters.
  const cut = lines.findIndex((l) => /^goroutine \d+ \[/.test(l.trim()));
  const own = cut >= 0 ? lines.slice(0, cut) : lines;
  // A parent usually prints nothing of its own: which subtests failed, and where the first did, is what it has to say.
  const n = failingSubtests.length;
  const subs =
    n > 0
      ? `${n} subtest${n === 1 ? "" : "s"} failed: ${failingSubtests
          .slice(0, SUBTESTS_LISTED)
          .map((x) => x.name)
          .join(", ")}${n > SUBTESTS_LISTED ? ", …" : ""}`
      : "";
  const message = boundMessage([...own, subs].filter((l) => l !== "").join("\n"));
  const placeOf = (x: TestState) => panicLocation(x.output, cwd) ?? logLocation(pkg, x.output, goModule);
  let place = placeOf(t);
  for (const x of failingSubtests) place ??= placeOf(x);
  return failure(`${pkg}.${t.name}`, message, place);
}

/**
 * `t.Errorf` prefixes its message with `calc_test.go:13:`, a name relative to the package's folder; with
 * the module path (go.mod) the folder is known, else the bare file name is kept.
 */
function logLocation(pkg: string, output: string[], goModule?: string): { file: string; line: number } | undefined {
  for (const l of output) {
    const m = /^\s+([\w.-]+\.go):(\d+): /.exec(l);
    if (!m) continue;
    const dir = goModule === undefined ? "" : pkg === goModule ? "" : pkg.startsWith(`${goModule}/`) ? pkg.slice(goModule.length + 1) : "";
    return { file: dir ? `${dir}/${m[1]}` : m[1]!, line: Number(m[2]) };
  }
  return undefined;
}

/** The first stack frame of a panic that is in the repository (not the runtime, testing, or modules). */
function panicLocation(output: string[], cwd?: string): { file: string; line: number } | undefined {
  let inPanic = false;
  for (const l of output) {
    if (/^\s*panic: /.test(l)) inPanic = true;
    if (!inPanic) continue;
    const m = /^\t(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?\s*$/.exec(l);
    if (!m) continue;
    if (/\/(src\/(runtime|testing|reflect)|pkg\/mod)\//.test(m[1]!) || /\/go(-[\d.]+)?\/src\//.test(m[1]!)) continue;
    const file = normalizePath(m[1]!, cwd);
    if (isProjectPath(file, cwd)) return { file, line: Number(m[2]) };
  }
  return undefined;
}

function buildFailure(pkg: string, errs: string[], cwd?: string): TestFailure {
  const first = errs.map((l) => /^(?:vet: )?(\S+\.go):(\d+)(?::\d+)?: (.*)$/.exec(l.trim())).find((m) => m !== null);
  const message = boundMessage(errs.filter((l) => !l.startsWith("#")).join("\n")) ?? "build failed";
  return failure(pkg, message, first ? { file: normalizePath(first[1]!, cwd), line: Number(first[2]) } : undefined);
}

function pkgState(packages: Map<string, PackageState>, pkg: string): PackageState {
  let s = packages.get(pkg);
  if (!s) {
    s = { tests: new Map(), output: [] };
    packages.set(pkg, s);
  }
  return s;
}

/** Compiler errors come in `# pkg` blocks (`# pkg [pkg.test]` for test files), before the FAIL line. */
function collectBuildErrors(lines: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of lines) {
    const h = /^# (\S+)(?: \[.*\])?\s*$/.exec(line);
    if (h) {
      current = [];
      out.set(h[1]!, current);
      continue;
    }
    if (current && /^(?:vet: )?\S+\.go:\d+(?::\d+)?: /.test(line)) current.push(line);
    else if (current && !line.startsWith("\t")) current = null;
  }
  return out;
}

const RESULT_RE = /^(\s*)--- (PASS|FAIL|SKIP): (\S+) \([\d.]+s\)\s*$/;
const PKG_OK_RE = /^ok\s+(\S+)(?:\s+.*)?$/;
const PKG_FAIL_RE = /^FAIL\s+(\S+)(?:\s+([\d.]+s|\[(build|setup) failed\]|\(cached\)))?\s*$/;

// ---------------------------------------------------------------------------------------------
// Text output.

export function parseGoText(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  let seen = false;
  let verbose = false;
  for (const l of lines) {
    if (l.startsWith("=== RUN")) verbose = true;
    if (
      !seen &&
      (RESULT_RE.test(l) || (l.startsWith("ok") && /^ok\s+\S+\s+(\(cached\)|[\d.]+s)/.test(l)) || (l.startsWith("FAIL") && PKG_FAIL_RE.test(l) && /\t/.test(l)))
    )
      seen = true;
    if (seen && verbose) break;
  }
  if (!seen) return null;
  const buildErrors = collectBuildErrors(lines);
  const packages = new Map<string, PackageState>();
  // Results are printed before the package line that names their package.
  let pending = new Map<string, TestState>();
  let pendingOutput: string[] = [];
  let current: TestState | null = null;
  let currentIndent = -1;
  const stateOf = (name: string): TestState => {
    let t = pending.get(name);
    if (!t) {
      t = { name, output: [] };
      pending.set(name, t);
    }
    return t;
  };
  for (const line of lines) {
    const run = /^=== (RUN|CONT|NAME)\s+(\S+)\s*$/.exec(line);
    if (run) {
      current = stateOf(run[2]!);
      currentIndent = -1;
      continue;
    }
    const r = RESULT_RE.exec(line);
    if (r) {
      const t = stateOf(r[3]!);
      t.outcome = r[2] === "PASS" ? "pass" : r[2] === "FAIL" ? "fail" : "skip";
      // Without -v the test's output follows its result line, indented one level deeper.
      current = t;
      currentIndent = r[1]!.length;
      continue;
    }
    const ok = PKG_OK_RE.exec(line);
    const fail = ok ? null : PKG_FAIL_RE.exec(line);
    if ((ok && line.includes("\t")) || (fail && line.includes("\t"))) {
      const pkg = (ok ?? fail)![1]!;
      const state = pkgState(packages, pkg);
      state.outcome = fail ? (fail[3] ? "build-fail" : "fail") : "pass";
      for (const [name, t] of pending) state.tests.set(name, t);
      state.output.push(...pendingOutput);
      pending = new Map();
      pendingOutput = [];
      current = null;
      continue;
    }
    if (/^\?\s+\S+\s+\[no test files\]/.test(line)) continue;
    if (line === "PASS" || line === "FAIL") {
      current = null;
      continue;
    }
    if (
      current &&
      (currentIndent < 0 ||
        line.trim() === "" ||
        /^\s/.test(line) ||
        /^(panic|goroutine|fatal error)/.test(line) ||
        line.startsWith("\t") ||
        /^\S+\(.*\)$/.test(line) ||
        /^created by /.test(line))
    ) {
      current.output.push(line);
    } else {
      pendingOutput.push(line);
    }
  }
  // A run cut short (timeout, capped output) still reports what it printed.
  if (pending.size > 0) {
    const state = pkgState(packages, "(unknown package)");
    for (const [name, t] of pending) state.tests.set(name, t);
  }
  return summarize("go", packages, buildErrors, cwd, verbose, input.goModule);
}

// ---------------------------------------------------------------------------------------------
// -json output.

export function parseGoJson(input: TestInput): TestCounts | null {
  const { cwd } = input;
  const src = input.stdout.includes('"Action"') ? input.stdout : input.text;
  if (!src.includes('"Action"')) return null;
  const packages = new Map<string, PackageState>();
  const plain: string[] = [];
  let events = 0;
  let start = 0;
  while (start < src.length) {
    let end = src.indexOf("\n", start);
    if (end < 0) end = src.length;
    const line = src.slice(start, end);
    start = end + 1;
    if (!line.startsWith("{") || !line.includes('"Action"')) {
      plain.push(line);
      continue;
    }
    const ev = tryJson(line);
    if (!isRecord(ev)) continue;
    const action = str(ev.Action);
    const pkg = str(ev.Package) ?? str(ev.ImportPath);
    if (!action || !pkg) continue;
    events++;
    const state = pkgState(packages, pkg.replace(/ \[.*\]$/, ""));
    const test = str(ev.Test);
    if (action === "build-output") {
      const out = str(ev.Output);
      if (out) state.output.push(out.replace(/\n$/, ""));
      continue;
    }
    if (action === "build-fail") {
      state.outcome = "build-fail";
      continue;
    }
    if (test === undefined) {
      if (action === "output") state.output.push((str(ev.Output) ?? "").replace(/\n$/, ""));
      else if (action === "pass" || action === "fail" || action === "skip") {
        state.outcome = action === "fail" && typeof ev.FailedBuild === "string" ? "build-fail" : action;
      }
      continue;
    }
    let t = state.tests.get(test);
    if (!t) {
      t = { name: test, output: [] };
      state.tests.set(test, t);
    }
    if (action === "output") t.output.push((str(ev.Output) ?? "").replace(/\n$/, ""));
    else if (action === "pass" || action === "fail" || action === "skip") t.outcome = action;
  }
  if (events === 0) return null;
  // Go before 1.24 prints build failures as plain text among the events.
  const buildErrors = collectBuildErrors([...plain, ...input.text.split("\n").filter((l) => !l.startsWith("{"))]);
  for (const line of plain) {
    const m = PKG_FAIL_RE.exec(line);
    if (m?.[3]) pkgState(packages, m[1]!).outcome = "build-fail";
  }
  return summarize("go-json", packages, buildErrors, cwd, true, input.goModule);
}
