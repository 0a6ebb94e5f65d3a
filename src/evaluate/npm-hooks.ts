/**
 * npm runs a script's hooks around it: `npm test` runs `pretest`, `test`, then `posttest`, and so does
 * `npm run x` with `prex` / `postx`. A `posttest` lint that fails fails the test command after every test
 * passed (npm/node-semver: `"posttest": "npm run lint"`), so the tests of a right fix never count as
 * passing. `--ignore-scripts` (npm 7 and later: documented for `npm test` and `npm run-script`, checked on
 * npm 11) runs the named script alone, without its hooks. A `pretest` that builds what the tests need is
 * kept, run first as its own part; one that only checks code (a lint) stops the tests the way `xo` does
 * in `xo && ava`, and is left out, as is a post hook that only checks code. A post hook that runs anything
 * else (more tests: `node --test test/more`) is part of the tests: the command stays as given. So does one
 * whose test script reaches, through `npm run`, a script with hooks of its own: npm passes
 * `--ignore-scripts` down (npm_config_ignore_scripts), so `pretest:unit` of `npm run test:unit` would not run.
 */
import path from "node:path";
import { readPrefix } from "../util/read-prefix.js";
import { quoted } from "../util/text.js";
import { programOf, splitAndChain } from "./chain.js";
import { scriptsOf } from "./package-json.js";
import { isChecker, scriptRun } from "./runner-hint.js";
import { NPM } from "./select-command.js";

export const NO_HOOKS = "--ignore-scripts";

/**
 * Whether script `key` is a hook npm runs around another script: `postunit` beside a `unit`. A script only named
 * so (`preview`, `prettier`, `postcss`) is none (h24: `"preview": "vite preview"` kept every hook).
 */
export const isHook = (key: string, scripts: Record<string, string>): boolean => {
  const m = /^(?:pre|post)(.+)$/.exec(key);
  return !!m && Object.hasOwn(scripts, m[1]!);
};

/** A pre or post script of another package.json of the repository (`posttest` of `packages/core/package.json`). */
export interface OtherHook {
  hook: string;
  file: string;
}
const quote = (s: string) => quoted(s, 80);

/** The npm script `cmd` runs as typed (`npm test`, `npm run x`, nothing after them, hooks not already off), if it is one. */
function scriptOf(cmd: string): string | undefined {
  const m = NPM.exec(cmd.trim());
  return m && !m[4] && !m[3]?.includes(NO_HOOKS) ? (m[1] ? "test" : m[2]!) : undefined;
}

export interface HookPlan {
  /** The hook scripts' text, as package.json has them. */
  pre?: string;
  post?: string;
  /** The pre hook builds or prepares what the tests need (it is not only checkers): it still runs, first. */
  preKept: boolean;
  /**
   * Why the hooks run as npm runs them (command is the one given): the post hook runs more than checkers
   * (tests), or a script the test script runs through npm has a hook (`inner`, its name) `--ignore-scripts` would switch off.
   */
  kept?: { post: true } | { inner: string; runner?: true; where?: string };
  /** The command that runs the script without the hooks that only judge code (as given, when kept). */
  command: string;
}

const RUN_SCRIPT = /^\s*(?:npm|pnpm|yarn)\s+(?:run\s+|run-script\s+)?(?:-s\s+|--silent\s+)?([\w:.-]+)\s*$/;

/** Runners of npm scripts by name, whose scripts npm's `--ignore-scripts` reaches (npm_config_ignore_scripts). */
const SCRIPT_RUNNER = /(?:^|[\s;&|(/])(?:npm-run-all2?|run-s|run-p|concurrently|wireit|lerna|nx|turbo)(?=\s|$)/;
// A shell script, a program or a make target of the project's own (`bash scripts/test.sh`, `./test.sh`, `node
// scripts/run.js`, `make test`): what it runs (`npm run unit`, `cd packages/core && npm test`) is not read.
const OWN_PROGRAM =
  /^\s*(?:[A-Za-z_]\w*=\S*\s+)*(?:(?:bash|sh|zsh|dash|node|python3?|bun|deno|tsx|ts-node)\s+(?!-)(?!(?:\.\/)?node_modules\/)\S|(?:make|gmake|just|task)(?=\s|$)|(?!(?:\.\/)?node_modules\/)(?:\.{1,2}\/|\/|[\w-][\w.-]*\/)\S)/;
// A part that moves to another folder: the npm after it runs that folder's package.json (`cd packages/core && npm test`).
const CHANGES_DIR = /^\s*(?:cd|pushd)(?=\s|$)/;

/**
 * Whether `text` runs scripts in a way not followed by name: a script runner (`run-s test:*`), or npm, pnpm
 * or yarn in a form RUN_SCRIPT does not read (`npm run x -- test/`, `NODE_ENV=test npm run x`, `(npm run x)`,
 * a `;` list, `npm test --workspaces`, after a `cd`), or a script, program or make target of the project's own
 * (`bash scripts/test.sh`): any hook of another script may then be one of theirs, in this package.json or another.
 */
function runsScriptsUnfollowed(text: string): boolean {
  if (SCRIPT_RUNNER.test(text)) return true;
  const parts = splitAndChain(text) ?? [text];
  if (parts.some((p) => CHANGES_DIR.test(p))) return true;
  return parts.some((p) => OWN_PROGRAM.test(p) || (/(?:^|[^\w.-])(?:npm|pnpm|yarn)(?=\s|$)/.test(p) && !RUN_SCRIPT.test(p)));
}

/** The scripts `text` runs through npm (`npm run x`, `npm test`), those they run looked into (three deep). */
function scriptsReached(text: string, scripts: Record<string, string>, depth = 0): string[] {
  if (depth >= 3) return [];
  return (splitAndChain(text) ?? [text]).flatMap((p) => {
    const run = RUN_SCRIPT.exec(p);
    const name = run ? (/^(?:t|tst)$/.test(run[1]!) ? "test" : run[1]!) : undefined;
    if (name === undefined || !Object.hasOwn(scripts, name)) return [];
    return [name, ...scriptsReached(scripts[name]!, scripts, depth + 1)];
  });
}

// What a part of a script may run beyond its first program: another command (`;`, `|`, `||`, `&`), a subshell,
// a substitution, a redirection. Such a part is not known to only check code (`eslint . ; node --test it/`).
const MORE_THAN_ONE = /[;|&`\n()<>]|\$\(/;

/**
 * Whether a script only checks code: each of its parts is a known checker, scripts it runs through npm
 * looked into (three deep). Anything else, or what cannot be told, runs as npm runs it.
 */
export function onlyChecks(text: string, scripts: Record<string, string>, depth = 0): boolean {
  const parts = splitAndChain(text) ?? [text];
  return parts.every((p) => {
    // A program of the project's own: its name (`node scripts/eslint.js`, `./scripts/eslint`) says nothing of what it runs.
    if (MORE_THAN_ONE.test(p) || OWN_PROGRAM.test(p)) return false;
    const run = RUN_SCRIPT.exec(p);
    if (run) {
      // The script npm runs, and its own hooks around it (`poststyle` running more tests after `npm run style`).
      const names = [run[1]!, `pre${run[1]}`, `post${run[1]}`].filter((n, k) => k === 0 || Object.hasOwn(scripts, n));
      return depth < 3 && Object.hasOwn(scripts, run[1]!) && names.every((n) => onlyChecks(scripts[n]!, scripts, depth + 1));
    }
    const program = programOf(p.trim());
    // tsc checks code in a chain, but a pretest's tsc without --noEmit builds what the tests import.
    if (/^(?:tsc|vue-tsc)$/.test(program) && !/--noEmit\b/.test(p)) return false;
    return isChecker(program);
  });
}

/**
 * What to run instead of `cmd` (`npm test`, `npm run test:unit`) so that the script's hooks that only judge
 * code do not fail the tests; undefined when it has none, or only a pre hook the tests need. `cmd` itself,
 * with `kept` saying why, when a hook must run as npm runs it. `elsewhere`: a hook in another package.json of
 * the repository (a workspace's `posttest`), which a script reaching that package through npm would run.
 */
export function hookPlan(cmd: string, scripts: Record<string, string>, elsewhere?: () => OtherHook | undefined): HookPlan | undefined {
  const name = scriptOf(cmd);
  if (name === undefined) return undefined;
  const hook = (h: string) => (Object.hasOwn(scripts, h) ? scripts[h] : undefined);
  const pre = hook(`pre${name}`);
  const post = hook(`post${name}`);
  const preKept = pre !== undefined && !onlyChecks(pre, scripts);
  if (post === undefined && (pre === undefined || preKept)) return undefined;
  const hooks = { ...(pre !== undefined ? { pre } : {}), ...(post !== undefined ? { post } : {}), preKept };
  // A post hook that runs tests (or anything not known to only check code) is part of the tests.
  if (post !== undefined && !onlyChecks(post, scripts)) return { ...hooks, kept: { post: true }, command: cmd.trim() };
  // The scripts the test script runs through npm, with a hook of their own (the script's own are handled here).
  const reached = hook(name) === undefined ? [] : scriptsReached(hook(name)!, scripts).filter((s) => s !== name);
  const inner = reached.flatMap((s) => [`pre${s}`, `post${s}`].filter((h) => hook(h) !== undefined))[0];
  if (inner !== undefined) return { ...hooks, kept: { inner }, command: cmd.trim() };
  // Scripts run through a script runner (`run-s test:*`, `concurrently npm:x`), through npm in a form not read
  // here (`npm test --workspaces`, after a `cd`) or by a program of the project's own (`make test`) cannot be
  // followed by name: any hook of another script, here or in another package.json, may be one of theirs, and
  // npm's flag reaches them too.
  const texts = [hook(name) ?? "", ...reached.map((s) => hook(s) ?? "")];
  const own = Object.keys(scripts).find((k) => isHook(k, scripts) && k !== `pre${name}` && k !== `post${name}`);
  if (texts.some(runsScriptsUnfollowed)) {
    const far = own === undefined ? elsewhere?.() : undefined;
    const other = own !== undefined ? { inner: own } : far ? { inner: far.hook, where: far.file } : undefined;
    if (other !== undefined) return { ...hooks, kept: { ...other, runner: true }, command: cmd.trim() };
  }
  const alone = `${cmd.trim()} ${NO_HOOKS}`;
  // The kept pre hook by its own name: `npm run pretest` runs it (its own hooks are `prepretest`, rare).
  return { ...hooks, command: preKept ? `npm run pre${name} && ${alone}` : alone };
}

/** Why the hooks of `name` run as npm runs them, said; undefined when they are left out. */
export function hooksKept(name: string, plan: HookPlan): string | undefined {
  if (!plan.kept) return undefined;
  if ("post" in plan.kept)
    return `npm runs scripts.post${name} (${quote(plan.post!)}) after scripts.${name}${plan.pre !== undefined ? ` (and scripts.pre${name} (${quote(plan.pre)}) before it)` : ""}; it runs more than checkers (tests, or what code-trm cannot tell from a check), so it is part of the tests: the command runs it as npm does, and a failing hook fails the tests.`;
  const own = (["pre", "post"] as const)
    .filter((h) => plan[h] !== undefined && (h === "post" || !plan.preKept))
    .map((h) => `scripts.${h}${name} (${quote(plan[h]!)})`);
  const hook = plan.kept.inner;
  const how = plan.kept.runner
    ? `scripts.${name} runs scripts through a script runner (run-s, concurrently and the like), through npm in a form code-trm does not follow or through a program of the project's own (make, a shell script), and scripts.${hook}${plan.kept.where ? ` of ${plan.kept.where}` : ""} may be a hook of one of them`
    : `scripts.${name} runs a script through npm that has a hook of its own, scripts.${hook}`;
  return `${how}; ${NO_HOOKS} would leave that out too (npm passes the flag down to the npm the script runs), so the command runs the hooks as npm does${own.length > 0 ? `, ${own.join(" and ")} with them` : ""}, and a failing hook fails the tests however they went.`;
}

/** The hooks left out, said: which npm runs, and what they run. */
export function hooksLeftOut(name: string, plan: HookPlan): string {
  const out = [
    ...(plan.pre !== undefined && !plan.preKept ? [`scripts.pre${name} (${quote(plan.pre)}) before scripts.${name}`] : []),
    ...(plan.post !== undefined ? [`scripts.post${name} (${quote(plan.post)}) after scripts.${name}`] : []),
  ];
  return out.join(" and ");
}

/**
 * The start's word on a given test command whose npm script has hooks that judge code (detection already
 * leaves them out): what they run, that a failing one fails the tests however they went, and the command
 * that runs the tests alone. Undefined when there is nothing to say.
 */
export function hookAdvice(cmd: string, cwd: string, elsewhere?: () => OtherHook | undefined): string | undefined {
  if (!scriptRun(cmd, cwd)) return undefined;
  const scripts = scriptsOf(readPrefix(path.join(cwd, "package.json"), 200_000));
  const plan = hookPlan(cmd, scripts, elsewhere);
  // Hooks that run as part of the tests: the given command is the one to run.
  if (!plan || plan.kept) return undefined;
  const name = scriptOf(cmd)!;
  return `testCmd "${cmd.trim()}": npm runs ${hooksLeftOut(name, plan)}, and a failing hook fails the test command however the tests went (after all of them passed, for a post hook). ${JSON.stringify({ testCmd: plan.command })} runs the tests ${plan.preKept ? `after scripts.pre${name} ` : ""}without the hooks (${NO_HOOKS}, npm 7 and later); give what a hook checks as lintCmd or a check.`;
}
