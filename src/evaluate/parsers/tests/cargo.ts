/**
 * `cargo test`: one `running N tests` ... `test result: FAILED. 1 passed; 2 failed; 1 ignored; ...`
 * block per test binary (unit tests, each integration test file, doc tests), summed. Failures come from
 * the `---- name stdout ----` sections, whose panic line gives the message and location:
 *
 *   thread 'tests::multiplies' (8220) panicked at src/lib.rs:30:9:     (Rust 1.73+)
 *   assertion `left == right` failed
 *
 *   thread 'x' panicked at 'message', src/lib.rs:30:9                  (older Rust)
 *
 * A test target that does not compile runs nothing; cargo says `error: could not compile `crate`
 * (test "it")`, which is counted as one failure per target with the first compiler error.
 *
 * Every test is named by its `test name ... ok|FAILED|ignored` line (cases), so tests are tracked across
 * steps. A doc test is named `src/lib.rs - mul (line 12)`: the line moves whenever code above it changes,
 * so it is named without it (`src/lib.rs - mul`) and the line becomes the failure's location.
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { boundMessage, normalizePath } from "../util.js";
import { counts, failure, MAX_CASES, type TestInput } from "./common.js";

const RESULT_RE = /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured; (\d+) filtered out/;

export function parseCargo(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let results = 0;
  const failures: TestFailure[] = [];
  const compileFailures: TestFailure[] = [];
  /** Names reported FAILED by the `test name ... FAILED` lines, in case a section is missing. */
  const failedNames: string[] = [];
  const cases: TestCase[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("test result: ")) {
      const m = RESULT_RE.exec(line);
      if (m) {
        results++;
        passed += Number(m[1]);
        failed += Number(m[2]);
        skipped += Number(m[3]);
      }
      continue;
    }
    const outcome = line.startsWith("test ") ? testOutcome(line) : undefined;
    if (outcome) {
      const name = outcome.name.includes(" (line ") ? docTest(outcome.name).name : outcome.name;
      if (outcome.status === "failed") failedNames.push(name);
      // Two test binaries may hold tests of one name; the later ones are numbered. Past MAX_CASES the
      // suite is tracked by counts (common.ts), so the names are not gathered.
      if (cases.length > MAX_CASES) continue;
      const k = (seen.get(name) ?? 0) + 1;
      seen.set(name, k);
      cases.push({ name: k === 1 ? name : `${name} #${k}`, status: outcome.status });
      continue;
    }
    const section = /^---- (.+) stdout ----$/.exec(line);
    if (section) {
      const body: string[] = [];
      let j = i + 1;
      for (; j < lines.length; j++) {
        const l = lines[j]!;
        if (/^---- .+ stdout ----$/.test(l) || l === "failures:" || l.startsWith("test result: ")) break;
        body.push(l);
      }
      failures.push(panicFailure(section[1]!, body, cwd));
      i = j - 1;
      continue;
    }
    const cc = /^error: could not compile `([^`]+)`(?: \(([^)]*)\))?/.exec(line);
    if (cc) {
      const target = cc[2] ? `${cc[1]} (${cc[2]})` : cc[1]!;
      compileFailures.push(firstCompileError(`could not compile ${target}`, lines, i, cwd));
    }
  }
  if (results === 0 && compileFailures.length === 0) return null;
  const names = new Set(failures.map((f) => f.name));
  for (const n of failedNames) if (!names.has(n)) failures.push(failure(n));
  failures.push(...compileFailures);
  // Output a test printed (--nocapture) can split its outcome line: names must account for every test.
  const n = (st: TestCase["status"]) => cases.filter((c) => c.status === st).length;
  const named = n("passed") === passed && n("skipped") === skipped && n("failed") === failed;
  return counts("cargo", { passed, failed: failed + compileFailures.length, skipped }, failures, undefined, named ? cases : undefined);
}

/** `test name ... ok`, `... FAILED`, `... ignored` or `... ignored, reason` (names hold no " ... "). */
function testOutcome(line: string): { name: string; status: TestCase["status"] } | undefined {
  const at = line.indexOf(" ... ");
  if (at <= 5) return undefined;
  const word = line.slice(at + 5);
  const status = word === "ok" ? "passed" : word === "FAILED" ? "failed" : word === "ignored" || word.startsWith("ignored, ") ? "skipped" : undefined;
  return status ? { name: line.slice(5, at), status } : undefined;
}

function docTest(name: string): { name: string; at?: { file: string; line: number } } {
  // `src/lib.rs - mul (line 12)`, also `... (line 3) - compile fail`.
  const m = /^(\S+) - (.+?) \(line (\d+)\)(.*)$/.exec(name);
  return m ? { name: `${m[1]} - ${m[2]}${m[4]}`, at: { file: m[1]!, line: Number(m[3]) } } : { name };
}

function panicFailure(rawName: string, body: string[], cwd?: string): TestFailure {
  const doc = docTest(rawName);
  const f = panicDetails(doc.name, body, cwd);
  // A doc test's panic line is inside the generated test program; its place in the file is the name's line.
  if (!doc.at) return f;
  return failure(doc.name, f.message, { file: normalizePath(doc.at.file, cwd), line: doc.at.line });
}

function panicDetails(name: string, body: string[], cwd?: string): TestFailure {
  for (let k = 0; k < body.length; k++) {
    const line = body[k]!;
    if (!line.includes("panicked at ")) continue;
    const modern = /panicked at (.+?):(\d+):(\d+):\s*$/.exec(line);
    if (modern) {
      const msg: string[] = [];
      for (let j = k + 1; j < body.length; j++) {
        const l = body[j]!;
        if (l.startsWith("stack backtrace:") || l.startsWith("note: ") || (l.trim() === "" && msg.length > 0)) break;
        msg.push(l);
      }
      return failure(name, boundMessage(msg.join("\n")), { file: normalizePath(modern[1]!, cwd), line: Number(modern[2]) });
    }
    const legacy = /panicked at '(.*)', (.+?):(\d+):(\d+)\s*$/.exec(line);
    if (legacy) return failure(name, boundMessage(legacy[1]), { file: normalizePath(legacy[2]!, cwd), line: Number(legacy[3]) });
  }
  return failure(name, boundMessage(body.join("\n")));
}

/** The first `error[...]: message` and its ` --> file:line:col` before the "could not compile" line. */
function firstCompileError(name: string, lines: string[], at: number, cwd?: string): TestFailure {
  let start = at;
  // Search back to the previous "could not compile" or the start, bounded.
  while (start > 0 && at - start < 2000 && !lines[start - 1]!.startsWith("error: could not compile")) start--;
  for (let i = start; i < at; i++) {
    const m = /^error(?:\[(E\d+)\])?: (.*)$/.exec(lines[i]!);
    if (!m) continue;
    for (let j = i + 1; j < at && j <= i + 3; j++) {
      const loc = /^\s*--> (.+):(\d+):(\d+)\s*$/.exec(lines[j]!);
      if (loc) return failure(name, m[2], { file: normalizePath(loc[1]!, cwd), line: Number(loc[2]) });
    }
    return failure(name, m[2]);
  }
  return failure(name);
}
