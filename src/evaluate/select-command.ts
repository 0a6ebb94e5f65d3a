/**
 * How the arguments that run only some tests (a runner descriptor's selectByName) are added to the
 * user's test command, or why they cannot be. The rules, as docs/failing-first.md states them:
 * - The command (or the last part of its `&&` chain) names the runner (`npx vitest run`, `python -m
 *   pytest -q`, `xo && ava`): the arguments go at the end of that part, or where the descriptor says
 *   (`node --test`: right after `--test`, before any file argument). Earlier parts still run.
 * - `npm test`, `npm t` or `npm run <script>`: the script must name the runner in its last part, where
 *   npm appends what follows `--` (`npm test -- -t '…'`); a runner whose arguments must go elsewhere
 *   than at the end of the script is not selected through npm.
 * - Anything else (a pipe, `;`, a runner not named or not last, yarn, pnpm, make, a script calling a
 *   script): no selection, the whole suite runs as it always did.
 * A selection that lists too many names is not worth it: the whole suite runs.
 */
import { shellQuote } from "../util/text.js";
import { splitAndChain } from "./chain.js";
import { packageScript } from "./runner-hint.js";
import { type RunnerDescriptor, runnerOfCommand } from "./runners/index.js";
import { escapeRegExp } from "./runners/types.js";

/** Beyond this many names (or characters of arguments) a selection runs the whole suite instead. */
export const MAX_SELECTED = 100;
const MAX_ARGS_CHARS = 16_000;

export interface Selection {
  runner: RunnerDescriptor;
  /**
   * The test command with the selection of `names` (and of the test files they are in, where the runner takes
   * them), or undefined when there are too many.
   */
  command(names: string[], files?: string[]): string | undefined;
  /** How it is built, for the start result: the command with a placeholder name. */
  example: string;
}

/** The parts of a plain `&&` list, or of a plain single command; null for anything else (a pipe, `;`, `&`). */
function plainParts(cmd: string): string[] | null {
  const chain = splitAndChain(cmd);
  if (chain) return chain;
  // One part: plain when it would split as the first of two.
  return splitAndChain(`${cmd} && :`) ? [cmd] : null;
}

/** `npm test` / `npm run <name>` as typed: the script's name (1: test, 2: run's), npm's own flags after it (3), what follows `--` (4). */
export const NPM =
  /^npm\s+(?:(?:-s|--silent|-q|--quiet)\s+)*(?:(test|t|tst)|(?:run|run-script)\s+(?:(?:-s|--silent)\s+)*([\w:.-]+))((?:\s+(?:-s|--silent|-q|--quiet|--ignore-scripts))*)(\s+--(?:\s.*)?)?$/;

/** Where arguments go in `part` (the runner's own): at its end, or after what `selectAt.after` matches (node's options before its files). */
function insertion(part: string, r: RunnerDescriptor): { at: number } | { off: string } {
  const after = r.selectAt?.after?.exec(part);
  if (r.selectAt?.after && !after) return { off: `${r.name}'s options could not be placed in \`${part.trim()}\`` };
  return { at: after ? after.index + after[0].length : part.trimEnd().length };
}

/** Why `r` cannot take a selection of tests in `part`, if it cannot. */
function unselectable(part: string, r: RunnerDescriptor): string | undefined {
  if (!r.selectByName) return `${r.name} has no way to run tests by name`;
  if (r.selectAt?.not?.test(part)) return `\`${part.trim()}\` takes no test names`;
  return undefined;
}

/** The arguments as shell words; a leading `--` merged into one the part already has (cargo's). */
function words(args: string[], part: string): string {
  const a = args[0] === "--" && /(?:^|\s)--(?:\s|$)/.test(part) ? args.slice(1) : args;
  return a.map(shellQuote).join(" ");
}

/** A test command with shell words added in its runner's part, as the rules above place them. */
export interface Placement {
  runner: RunnerDescriptor;
  /** The text the words are added to: the runner's part of the command, or the npm command that runs its script. */
  part: string;
  /** The runner's part as it runs: the command's, or the script's with what npm appends after `--`. */
  runnerPart: string;
  /** The command with `words` (already quoted) placed, and `tail` (quoted too) at the end of the runner's part. */
  place(words: string, tail?: string): string;
}

/**
 * Where arguments for the runner go in the test command, or why they cannot (the rules at the top).
 * `refuse` says why a runner cannot take these arguments in its part, checked before they are placed.
 */
export function placeArgs(
  testCmd: string,
  cwd: string,
  refuse: (part: string, r: RunnerDescriptor) => string | undefined = () => undefined,
): Placement | { off: string } {
  const cmd = testCmd.trim();
  if (/[\n\r]/.test(cmd)) return { off: "the test command spans lines" };
  const parts = plainParts(cmd);
  if (!parts) return { off: "the test command is not a plain command or `&&` list (a pipe, `;` or `&`)" };
  const last = parts[parts.length - 1]!;
  const direct = runnerOfCommand(last);
  if (direct) {
    const why = refuse(last, direct);
    if (why) return { off: why };
    const at = insertion(last, direct);
    if ("off" in at) return at;
    const head = cmd.slice(0, cmd.length - last.length);
    return {
      runner: direct,
      part: last,
      runnerPart: last,
      place: (text, tail) => `${`${head}${last.slice(0, at.at).trimEnd()} ${text}${last.slice(at.at)}`.trimEnd()}${tail ? ` ${tail}` : ""}`,
    };
  }
  const earlier = parts
    .slice(0, -1)
    .map((p) => runnerOfCommand(p))
    .find(Boolean);
  if (earlier) return { off: `${earlier.name} is not the last part of the test command, where its arguments would go` };
  const npm = NPM.exec(cmd);
  if (!npm)
    return {
      off: /^(?:yarn|pnpm|bun\s+run)\b/.test(cmd)
        ? "only npm's scripts are followed (yarn and pnpm pass `--` on differently)"
        : "the test command does not name a runner code-trm can select tests with",
    };
  const name = npm[1] ? "test" : npm[2]!;
  const script = packageScript(name, cwd)?.trim();
  if (script === undefined) return { off: `package.json has no script "${name}"` };
  const sparts = /[\n\r]/.test(script) ? null : plainParts(script);
  if (!sparts) return { off: `the script "${name}" is not a plain command or \`&&\` list` };
  const slast = sparts[sparts.length - 1]!;
  const r = runnerOfCommand(slast);
  if (!r) return { off: `the last part of the script "${name}" (\`${slast.trim().slice(0, 80)}\`) names no runner code-trm can select tests with` };
  const why = refuse(slast, r);
  if (why) return { off: why };
  const at = insertion(slast, r);
  if ("off" in at) return at;
  if (at.at < slast.trimEnd().length) return { off: `npm adds arguments at the end of the script "${name}", where ${r.name} would not take them as options` };
  // What follows `--` npm appends to the script, before the arguments: a word there that is not an option
  // may be a file, after which a runner whose options go before its files (node) takes them for files.
  const appended = npm[4]?.replace(/^\s+--/, "") ?? "";
  if (
    r.selectAt?.after &&
    appended
      .trim()
      .split(/\s+/)
      .some((w) => w !== "" && !w.startsWith("-"))
  )
    return { off: `\`${cmd}\` gives the script "${name}" arguments after which ${r.name} would not take options` };
  const runnerPart = `${slast}${appended}`;
  const sep = npm[4] ? "" : " --";
  return { runner: r, part: cmd, runnerPart, place: (text, tail) => `${cmd}${sep} ${text}${tail ? ` ${tail}` : ""}` };
}

/**
 * How the test command runs some of its tests, or why it cannot (the whole suite then runs). `testCmd` has
 * its `{files}` expanded already: the command built is run as it is, never expanded again.
 */
export function selectionFor(testCmd: string, cwd: string): Selection | { off: string } {
  const p = placeArgs(testCmd, cwd, unselectable);
  if ("off" in p) return p;
  const r = p.runner;
  return {
    runner: r,
    command: (names, files) => {
      if (names.length === 0 || names.length > MAX_SELECTED) return undefined;
      const inFiles = files?.length && files.length <= MAX_SELECTED ? r.selectFiles?.(files, p.runnerPart) : undefined;
      const byName = r.selectByName!(names);
      if (!byName) return undefined;
      const text = words(byName, p.part);
      const tail = (inFiles ?? []).map(shellQuote).join(" ");
      return text.length + tail.length > MAX_ARGS_CHARS ? undefined : p.place(text, tail);
    },
    example: p.place(words(r.selectByName!(["<name>"]) ?? [], p.part)),
  };
}

export interface RelatedSelection {
  runner: RunnerDescriptor;
  /** The test command running only the tests the runner relates to `files` (repository paths), or undefined when too many. */
  command(files: string[]): string | undefined;
  example: string;
}

/**
 * The runner's part of a command with its related-tests arguments (runners/types.ts, `related`), or why not.
 * A part that names test files or filters (`jest test/unit`, `vitest run src`) is refused: the runner would
 * take them for changed files and relate tests beyond those the command runs. A word right after an option
 * without `=` is taken for that option's value, unless the runner says the option takes none (`related.flags`).
 */
function relatedPart(part: string, r: RunnerDescriptor): { build: (args: string) => string } | { off: string } {
  const rel = r.related;
  if (!rel) return { off: `${r.name} cannot say which tests relate to a file` };
  const bin = new RegExp(`(?:^|[\\s/])${escapeRegExp(rel.bin)}(?=\\s|$)`).exec(part);
  if (!bin) return { off: `\`${part.trim()}\` does not run ${rel.bin} by name` };
  let head = part.slice(0, bin.index + bin[0].length);
  let rest = part.slice(head.length).trimEnd();
  const first = /^\s+([^\s-]\S*)/.exec(rest);
  if (rel.subcommand) {
    if (first && !rel.subcommand.replaces.includes(first[1]!)) return { off: `\`${rel.bin} ${first[1]}\` cannot run related tests` };
    if (first) rest = rest.slice(first[0].length);
    head = `${head} ${rel.subcommand.name}`;
  }
  if (/['"\\`$]/.test(rest)) return { off: `the arguments of \`${part.trim()}\` hold quotes or expansions` };
  const beyond = rel.beyond?.exec(rest);
  if (beyond) return { off: `with ${beyond[0].trim().replace(/=$/, "")}, the tests ${r.name} relates to a file may be ones \`${part.trim()}\` does not run` };
  const words = rest.trim().split(/\s+/).filter(Boolean);
  const valueless = (w: string) => !w.startsWith("-") || w.includes("=") || !!rel.flags?.test(w);
  const positional = words.find((w, i) => !w.startsWith("-") && (i === 0 || valueless(words[i - 1]!)));
  if (positional) return { off: `\`${part.trim()}\` names tests to run (${positional}); the tests related to a file could go beyond them` };
  return { build: (args) => `${head}${rest} ${args}` };
}

/**
 * How the test command runs only the tests its runner relates to changed files (affected first), or why it
 * cannot. The files are given as `./path` (never taken for an option) and quoted. Through npm: a runner
 * taking options (jest) gets them after `--`; one whose related tests are a subcommand (vitest) has the
 * script itself rewritten and run by `npm exec -c`, as npm runs it, unless a `pre` script would run first.
 */
export function relatedFor(testCmd: string, cwd: string): RelatedSelection | { off: string } {
  const cmd = testCmd.trim();
  if (/[\n\r]/.test(cmd)) return { off: "the test command spans lines" };
  const parts = plainParts(cmd);
  if (!parts) return { off: "the test command is not a plain command or `&&` list (a pipe, `;` or `&`)" };
  const last = parts[parts.length - 1]!;
  const make = (r: RunnerDescriptor, build: (args: string) => string): RelatedSelection => {
    const args = (files: string[]) =>
      r
        .related!.args(files.map((f) => `./${f}`))
        .map(shellQuote)
        .join(" ");
    return {
      runner: r,
      command: (files) => {
        if (files.length === 0 || files.length > MAX_SELECTED) return undefined;
        const text = args(files);
        return text.length > MAX_ARGS_CHARS ? undefined : build(text);
      },
      example: build(args(["<file>"])),
    };
  };
  const direct = runnerOfCommand(last);
  if (direct) {
    const p = relatedPart(last, direct);
    if ("off" in p) return p;
    const head = cmd.slice(0, cmd.length - last.length);
    return make(direct, (args) => `${head}${p.build(args)}`);
  }
  const npm = NPM.exec(cmd);
  if (!npm) return { off: "the test command does not name a runner that relates tests to files" };
  const name = npm[1] ? "test" : npm[2]!;
  const script = packageScript(name, cwd)?.trim();
  const sparts = script === undefined || /[\n\r]/.test(script) ? null : plainParts(script);
  if (!script || !sparts) return { off: `the script "${name}" is not a plain command or \`&&\` list` };
  const slast = sparts[sparts.length - 1]!;
  const r = runnerOfCommand(slast);
  if (!r) return { off: `the last part of the script "${name}" names no runner that relates tests to files` };
  // What follows `--` npm appends to the script: it is checked as part of it.
  const p = relatedPart(`${slast}${npm[4]?.replace(/^\s+--/, "") ?? ""}`, r);
  if ("off" in p) return p;
  if (!r.related!.subcommand) return make(r, (args) => `${cmd}${npm[4] ? "" : " --"} ${args}`);
  // Without --ignore-scripts npm would run the pre script first, which `npm exec -c` does not.
  if (!/--ignore-scripts/.test(npm[3] ?? "") && packageScript(`pre${name}`, cwd) !== undefined)
    return { off: `npm runs the script "pre${name}" before "${name}"` };
  const shead = script.slice(0, script.length - slast.length);
  return make(r, (args) => `npm exec -c ${shellQuote(`${shead}${p.build(args)}`)}`);
}

/** The start result's word on it: which runner's selection a failing step's next step will use, or why none. */
export function failingFirstNote(testCmd: string, cwd: string, enabled: boolean, testReport?: string): string {
  if (!enabled) return "failing first: off (selectTests: false); every step runs the whole suite.";
  const s = selectionFor(testCmd, cwd);
  if ("off" in s) return `failing first: not available (${s.off}); every step runs the whole suite.`;
  if (testReport && s.runner.junitUnselectable)
    return `failing first: not available with testReport (${s.runner.name}: ${s.runner.junitUnselectable}); every step runs the whole suite.`;
  const r = relatedFor(testCmd, cwd);
  const affected =
    "off" in r
      ? s.runner.related
        ? ` Affected first: not available (${r.off}).`
        : ""
      : ` Affected first: a step after a full run without failures first runs the tests ${r.runner.name} relates to its changed files (\`${r.example.slice(0, 300)}\`), and is judged by them when one fails.`;
  return `failing first: after a step with failing tests, the next runs those first through ${s.runner.name}'s own selection (\`${s.example.slice(0, 300)}\`) and is judged by them while they fail; the whole suite runs once they pass.${affected} selectTests: false turns it off.`;
}
