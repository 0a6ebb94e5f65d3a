/**
 * When a test command's output cannot be counted, the exact change that makes it countable, for the
 * runner the project uses. The runner is found in the command itself, else in what it runs
 * (`npm test` → package.json's scripts), else in the project files (pyproject.toml, go.mod, Cargo.toml),
 * else in package.json's dependencies: what each runner's descriptor (runners/) says recognises it.
 */

import path from "node:path";
import { readPrefix } from "../util/read-prefix.js";
import { truncate } from "../util/text.js";
import { programOf, splitAndChain } from "./chain.js";
import { parsePackageJson, scriptsOf } from "./package-json.js";
import { RUNNERS, type RunnerDescriptor, runnerOfCommand } from "./runners/index.js";
import { FOLLOWS_EXIT, type TestCounts } from "./types.js";

function read(file: string): string {
  // The repository's own files, read at every start (chainAdvice): a committed link to /dev/zero must not hang it.
  return readPrefix(file, 200_000);
}

/** The fix for the runner the command names, without reading the project (undefined when none is named). */
export function hintFromCommand(cmd: string): string | undefined {
  return match(cmd);
}

function match(text: string): string | undefined {
  return runnerOfCommand(text)?.readableReport;
}

/** What the test command runs, expanded through package.json scripts one level deep. */
function expand(cmd: string, cwd: string): string {
  const s = scriptRun(cmd, cwd);
  return s !== undefined ? `${cmd} ${s}` : cmd;
}

/** The text of the package.json script the command runs (`npm test`, `pnpm run x`, `bun run x`), if any. */
export function scriptRun(cmd: string, cwd: string): string | undefined {
  // `bun test` is bun's own runner; `bun run test` runs the script.
  const m = /\b(?:(?:npm|pnpm|yarn)\s+(?:run\s+)?|bun\s+run\s+)(?:-s\s+)?([\w:.-]+)/.exec(cmd);
  return m ? packageScript(m[1] === "t" ? "test" : m[1]!, cwd) : undefined;
}

/** The text of a package.json script of the project at `cwd`, if it has one by that name. */
export function packageScript(name: string, cwd: string): string | undefined {
  return scriptsOf(read(path.join(cwd, "package.json")))[name];
}

/** The package names package.json depends on (dependencies and devDependencies). */
function dependencies(cwd: string): Set<string> {
  return parsePackageJson(read(path.join(cwd, "package.json")))?.deps ?? new Set();
}

/**
 * The runner a test command runs, found as countsHint finds it (the command, the script it runs, the
 * project's files, its dependencies), and the project's dependencies (for a runner's optional packages).
 */
export function projectRunner(cmd: string, cwd: string): { runner: RunnerDescriptor | undefined; deps: Set<string> } {
  const deps = dependencies(cwd);
  const runner =
    runnerOfCommand(expand(cmd, cwd)) ??
    RUNNERS.find((r) =>
      r.recognise.files?.some((f) => {
        const text = read(path.join(cwd, f.file));
        return text !== "" && (f.contains?.test(text) ?? true);
      }),
    ) ??
    RUNNERS.find((r) => r.recognise.packages?.some((p) => deps.has(p)));
  return { runner, deps };
}

/** Every runner the test command names (or the script it runs), else the one projectRunner finds. */
export function projectRunners(cmd: string, cwd: string): RunnerDescriptor[] {
  const named = RUNNERS.filter((r) => r.recognise.command.test(expand(cmd, cwd)));
  if (named.length > 0) return named;
  const one = projectRunner(cmd, cwd).runner;
  return one ? [one] : [];
}

export function countsHint(cmd: string, cwd: string): string {
  const byCmd = match(expand(cmd, cwd));
  if (byCmd) return byCmd;
  const byFiles = RUNNERS.find((r) =>
    r.recognise.files?.some((f) => {
      const text = read(path.join(cwd, f.file));
      return text !== "" && (f.contains?.test(text) ?? true);
    }),
  );
  if (byFiles) return byFiles.readableReport;
  const deps = dependencies(cwd);
  const byPackage = RUNNERS.find((r) => r.recognise.packages?.some((p) => deps.has(p)));
  if (byPackage) return byPackage.readableReport;
  return 'make the runner print TAP, JUnit XML (testReport: "<file>") or its JSON report';
}

/** Programs that check code rather than run tests: in a test chain they run before or after the tests, never beside them. */
const CHECKERS =
  /^(xo|eslint|standard|prettier|biome|tsc|tsd|vue-tsc|tslint|stylelint|ruff|flake8|pylint|mypy|pyright|black|isort|golangci-lint|staticcheck|gofmt|clippy|attw|publint|knip)$/;

/** A program as programOf gives it, named as the tool it is: `node bin/xo.js` is xo, `python -m mypy.py` mypy. */
const toolOf = (program: string): string => program.replace(/\.[cm]?js$|\.py$/, "");

/** Whether a program (as programOf gives it) checks code rather than runs tests. */
export const isChecker = (program: string): boolean => CHECKERS.test(toolOf(program));

/**
 * A test command that chains checkers with the tests (`xo && ava && tsd`, as package.json's test script
 * often does) runs them one after another, and a failing checker hides the tests' results. Given
 * apart, as lintCmd and checks, they run at the same time as the tests, each with its own output and
 * timeout. Undefined when there is nothing to say.
 */
export function chainAdvice(cmd: string, cwd: string): string | undefined {
  let parts = splitAndChain(cmd);
  let via = "testCmd";
  let fromScript = false;
  // The text is the repository's (package.json): advice only for a plain, short chain, quoted whole.
  if (cmd.length > 300 || /[\n\r]/.test(cmd)) return undefined;
  if (!parts) {
    const script = expand(cmd, cwd).slice(cmd.length).trim();
    if (script.length > 300 || /[\n\r]/.test(script)) return undefined;
    parts = script ? splitAndChain(script) : null;
    via = `testCmd "${cmd}" (its script "${script}")`;
    fromScript = true;
  }
  if (!parts) return undefined;
  // npm runs a script with node_modules/.bin on PATH; code-trm runs commands as typed, so a bare name
  // taken from a script needs npx (`xo` alone exits 127 there).
  const typed = (p: string) =>
    fromScript && /^[\w@][\w./@-]*(\s|$)/.test(p) && !/^(npx|npm|pnpm|yarn|bunx|node|python3?|go|cargo)\b/.test(p) ? `npx ${p}` : p;
  const programs = parts.map((p) => toolOf(programOf(p.trim())));
  const all = parts.map((p, i) => ({ part: typed(p.trim()), program: programs[i]! }));
  // The same test as the chain's reading (read-tests.ts), so that advice and reading never disagree.
  const checkers = all.filter((p) => isChecker(p.program));
  const runners = all.filter((p) => !isChecker(p.program));
  if (checkers.length === 0 || runners.length === 0) return undefined;
  const [lint, ...rest] = checkers;
  // As JSON, so that the arguments can be sent as printed.
  const given = JSON.stringify({
    testCmd: runners.map((r) => r.part).join(" && "),
    lintCmd: lint!.part,
    ...(rest.length ? { checks: rest.map((c) => ({ name: c.program.replace(/[^\w-]/g, "-").slice(0, 32), cmd: c.part, weight: 0.1 })) } : {}),
  });
  return `${via} runs ${programs.join(", ")} one after another, and a failing ${checkers.map((c) => c.program).join(" or ")} stops the chain before the tests report. Given apart, as ${given}, they run at the same time as the tests, each with its own output and timeout.`;
}

/**
 * What a failed test run's exit code says in its runner's terms (pytest 3: stopped at an internal error,
 * 4: could not start), said instead of countsNotices' generic hint; `t` is what was read of the output.
 */
export function stoppedNotice(t: TestCounts | null, exitCode: number | null | undefined, cmd: string, cwd: string, output: string): string | undefined {
  return exitCode ? projectRunner(cmd, cwd).runner?.stopped?.(exitCode, output, t, truncate(cmd, 300)) : undefined;
}

/**
 * What a test run whose counts are not all known says about its score (score.ts: with passed and failed
 * known the counts score it, else the exit code does), and the parser's own note on a passing run.
 */
export function countsNotices(t: TestCounts | null, exitCode: number | null | undefined, ok: boolean, cmd: string, cwd: string): string[] {
  if (t && t.passed !== null && t.failed !== null && t.total !== null) return ok && t.failed === 0 && t.note ? [t.note] : [];
  if (t && t.passed !== null && t.failed !== null) {
    // Only the skipped count is unknown (tape prints nothing for test.skip): the counts still score it.
    return [
      `Test counts are partly unknown (${t.note ?? `${t.format} does not print how many were skipped`}); the test score uses the ${t.passed} passed and ${t.failed} failed.`,
    ];
  }
  // A command that did not start has no test output to make readable: its own output says what is missing.
  if (!t && (exitCode === 127 || exitCode === 126))
    return [
      `The test command did not start (exit ${exitCode}: ${exitCode === 127 ? "a program it names was not found" : "not executable"}; its output says which), ${FOLLOWS_EXIT} (fail).`,
    ];
  const how = countsHint(cmd, cwd);
  if (!t)
    return [`Test output could not be read, ${FOLLOWS_EXIT} (${exitCode ?? "killed"}: ${ok ? "pass" : "fail"}). To get counts and failing tests: ${how}.`];
  const said = [`Test counts are partly unknown (${t.format} does not print them all), ${FOLLOWS_EXIT}. For exact counts: ${how}.`];
  return ok && t.failed === 0 && t.note ? [...said, t.note] : said;
}
