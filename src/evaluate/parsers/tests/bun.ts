/**
 * `bun test`'s default reporter (on stderr): a `file:` header per test file, `(pass|fail|skip|todo) a > b`
 * per test, each failure's code excerpt, message and frames printed before its `(fail)` line, a file
 * that cannot load as `# Unhandled error between tests`, and the summary: ` N pass`, ` N skip`,
 * ` N todo`, ` N fail` (the unloadable files included), ` N error`, `Ran N tests across M files.`; with `-t`
 * matching nothing, only `error: regex "…" matched 0 tests`.
 */
import type { TestCase, TestCounts, TestFailure } from "../../types.js";
import { boundMessage, firstProjectFrame } from "../util.js";
import { counts, failure, TAIL_LINES, type TestInput } from "./common.js";

const RESULT_RE = /^\((pass|fail|skip|todo)\) (.+?)(?: \[\d+(?:\.\d+)?m?s\])?$/;
const STATUS = { pass: "passed", fail: "failed", skip: "skipped", todo: "skipped" } as const;

/** The message of a failure block: the error line and what follows, without the code excerpt and frames. */
function messageOf(body: string[]): string | undefined {
  const start = body.findIndex((l) => /^(?:error: |\w*(?:Error|Exception)\b:? )/.test(l));
  const rest = (start >= 0 ? body.slice(start) : body).filter((l) => !/^\s+at /.test(l) && !/^\d+ \| /.test(l) && !/^\s*\^\s*$/.test(l) && !/^-+$/.test(l));
  return boundMessage(rest.join("\n").trim());
}

export function parseBun(input: TestInput): TestCounts | null {
  const { lines, cwd } = input;
  const sum: Record<string, number> = {};
  let ran = -1;
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - TAIL_LINES) && ran < 0; i--) {
    if (/^Ran \d+ tests? across \d+ files?\./.test(lines[i]!)) {
      ran = i;
      for (let j = i - 1; j >= 0 && j >= i - 12; j--) {
        const m = /^ (\d+) (pass|fail|skip|todo|error)s?$/.exec(lines[j]!);
        if (m) sum[m[2]!] = Number(m[1]);
        else if (!/^ \d+ (?:expect\(\) calls?|snapshots?.*|filtered out)$/.test(lines[j]!)) break;
      }
    }
  }
  // `-t` matching no test prints no summary, only this: no test ran (failing first's selection then matched nothing).
  if (ran < 0 && lines.slice(-TAIL_LINES).some((l) => /^error: regex ".*" matched 0 tests\. Searched \d+ files? /.test(l)))
    return counts("bun", { passed: 0, failed: 0, skipped: 0 }, []);
  if (ran < 0 || sum.pass === undefined || sum.fail === undefined) return null;
  const failures: TestFailure[] = [];
  const cases: TestCase[] = [];
  let file: string | undefined;
  let body: string[] = [];
  for (let i = 0; i < ran; i++) {
    const line = lines[i]!;
    const header = /^(\S.*\.[cm]?[jt]sx?):$/.exec(line);
    if (header) {
      file = header[1]!;
      body = [];
      continue;
    }
    if (line === "# Unhandled error between tests") {
      const block: string[] = [];
      let j = i + 2;
      while (j < ran && !/^-{10,}$/.test(lines[j]!)) block.push(lines[j++]!);
      failures.push(failure(file ?? "(unhandled error)", messageOf(block), firstProjectFrame(block.join("\n"), cwd)));
      i = j;
      body = [];
      continue;
    }
    const m = RESULT_RE.exec(line);
    if (!m) {
      body.push(line);
      continue;
    }
    const name = m[2]!;
    const status = STATUS[m[1] as keyof typeof STATUS];
    cases.push({ name, status });
    if (status === "failed") {
      // A timeout is said after the (fail) line.
      const after = /^\s+\^ (this test timed out.*)$/.exec(lines[i + 1] ?? "");
      // A timeout prints no frame: the test's file is its place.
      failures.push(failure(name, after ? after[1] : messageOf(body), firstProjectFrame(body.join("\n"), cwd) ?? (file !== undefined ? { file } : undefined)));
    }
    body = [];
  }
  const skipped = (sum.skip ?? 0) + (sum.todo ?? 0);
  return counts("bun", { passed: sum.pass, failed: sum.fail, skipped }, failures, undefined, cases);
}
