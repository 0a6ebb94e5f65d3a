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

/** Beyond this many names (or characters of arguments) a selection runs the whole suite instead. */
export const MAX_SELECTED = 100;
const MAX_ARGS_CHARS = 16_000;

export interface Selection {
  runner: RunnerDescriptor;
  /** The test command with the selection of `names`, or undefined when there are too many. */
  command(names: string[]): string | undefined;
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

const NPM =
  /^npm\s+(?:(?:-s|--silent|-q|--quiet)\s+)*(?:(test|t|tst)|(?:run|run-script)\s+(?:(?:-s|--silent)\s+)*([\w:.-]+))((?:\s+(?:-s|--silent|-q|--quiet))*)(\s+--(?:\s.*)?)?$/;

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
  /** The command with `words` (already quoted) placed. */
  place(words: string): string;
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
    return { runner: direct, part: last, place: (text) => `${head}${last.slice(0, at.at).trimEnd()} ${text}${last.slice(at.at)}`.trimEnd() };
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
  const sep = npm[4] ? "" : " --";
  return { runner: r, part: cmd, place: (text) => `${cmd}${sep} ${text}` };
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
    command: (names) => {
      if (names.length === 0 || names.length > MAX_SELECTED) return undefined;
      const text = words(r.selectByName!(names), p.part);
      return text.length > MAX_ARGS_CHARS ? undefined : p.place(text);
    },
    example: p.place(words(r.selectByName!(["<name>"]), p.part)),
  };
}

/** The start result's word on it: which runner's selection a failing step's next step will use, or why none. */
export function failingFirstNote(testCmd: string, cwd: string, enabled: boolean): string {
  if (!enabled) return "failing first: off (selectTests: false); every step runs the whole suite.";
  const s = selectionFor(testCmd, cwd);
  if ("off" in s) return `failing first: not available (${s.off}); every step runs the whole suite.`;
  return `failing first: after a step with failing tests, the next runs those first through ${s.runner.name}'s own selection (\`${s.example.slice(0, 300)}\`) and is judged by them while they fail; the whole suite runs once they pass. selectTests: false turns it off.`;
}
