/**
 * The commands a JavaScript / TypeScript repository declares: package.json's scripts, run with the
 * package manager its `packageManager` field or lockfile names; else the runner, type checker and linter
 * its devDependencies name (runners as their descriptors recognise them). Pure: reads through a RepoView.
 */
import { installFix } from "../evaluate/missing-program.js";
import { type HookPlan, hookPlan, hooksKept, hooksLeftOut, isHook, NO_HOOKS, type OtherHook } from "../evaluate/npm-hooks.js";
import { parsePackageJson } from "../evaluate/package-json.js";
import { RUNNERS, type RunnerDescriptor, runnerOfCommand } from "../evaluate/runners/index.js";
import type { Detected, RepoView } from "./detect-commands.js";
import { workspacePatterns } from "./workspaces.js";

type PmName = "npm" | "pnpm" | "yarn" | "bun";
export interface PackageManager {
  name: PmName;
  /** Where it was read from, for the why line. */
  from: string;
  /** yarn 2+ (berry): Plug'n'Play may leave no node_modules, so npx cannot stand in for it. */
  berry?: boolean;
}

interface PackageJson {
  scripts: Record<string, string>;
  deps: Set<string>;
  packageManager?: string;
  eslintConfig: boolean;
}

function readPackageJson(text: string): PackageJson | undefined {
  const pkg = parsePackageJson(text);
  if (!pkg) return undefined;
  const { json, scripts, deps } = pkg;
  return { scripts, deps, packageManager: typeof json.packageManager === "string" ? json.packageManager : undefined, eslintConfig: "eslintConfig" in json };
}

/** The package manager the repository declares: `packageManager` first (corepack reads it), else its lockfile. */
export function packageManagerOf(pkg: { packageManager?: string }, repo: RepoView): PackageManager {
  const field = /^(npm|pnpm|yarn|bun)@(\d+)?/.exec(pkg.packageManager ?? "");
  if (field) {
    const name = field[1] as PmName;
    return {
      name,
      from: `package.json packageManager ${JSON.stringify(clip(pkg.packageManager!.split("+")[0]!))}`,
      ...(name === "yarn" && Number(field[2] ?? 1) >= 2 ? { berry: true } : {}),
    };
  }
  if (repo.has("pnpm-lock.yaml")) return { name: "pnpm", from: "pnpm-lock.yaml" };
  if (repo.has("yarn.lock")) {
    // Berry writes `__metadata:` into its lockfile and is configured by .yarnrc.yml; classic has neither.
    const berry = repo.has(".yarnrc.yml") || /^__metadata:/m.test(repo.read("yarn.lock", 4096));
    return { name: "yarn", from: `yarn.lock${berry ? " (yarn 2+)" : ""}`, ...(berry ? { berry } : {}) };
  }
  if (repo.has("bun.lock") || repo.has("bun.lockb")) return { name: "bun", from: repo.has("bun.lock") ? "bun.lock" : "bun.lockb" };
  if (repo.has("package-lock.json")) return { name: "npm", from: "package-lock.json" };
  if (repo.has("npm-shrinkwrap.json")) return { name: "npm", from: "npm-shrinkwrap.json" };
  return { name: "npm", from: "no lockfile" };
}

/** How a package manager runs a script (`bun test` is bun's own runner, so bun runs scripts with `bun run`). */
export function runScript(pm: PmName, script: string): string {
  if (script === "test" && pm !== "bun") return `${pm} test`;
  return `${pm} run ${script}`;
}

/** npm's placeholder for a package without tests, and scripts that only print or exit: they run no test. */
const PLACEHOLDER = /no test specified/;
const runsNothing = (text: string) => PLACEHOLDER.test(text) || partsOf(text).every((p) => /^(?:echo\b.*|exit(?:\s+\d+)?|true|:)$/.test(p));
/** Scripts that write files (autofix, formatting) are not a check. */
const WRITES = /--fix\b|--write\b|\bfix\b|--apply\b|(?:^|\s)-w(?=\s|$)/;
const TYPECHECK_SCRIPTS = ["typecheck", "type-check", "check-types", "check:types", "types", "tsc", "test:types", "lint:types"];
const PM_PREFIX = /^(?:(?:pnpm|yarn|bun)\s+(?:exec\s+|run\s+|dlx\s+)?|npx\s+(?:--no-install\s+|--no\s+)?|bunx\s+|npm\s+exec\s+(?:--\s+)?)/;

/** How much inlined text one expansion may add: scripts that each run another many times would grow exponentially. */
const EXPAND_BUDGET = 16 * 1024;

/** The script's own text with the scripts it runs (`pnpm test:unit`, `npm run x`) inlined, three levels deep. */
export function expandScript(text: string, scripts: Record<string, string>, depth = 0, budget = { left: EXPAND_BUDGET }): string {
  if (depth >= 3) return text;
  return text.replace(/\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+|run-script\s+)?(?:-s\s+|--silent\s+)?([\w:.-]+)/g, (whole, name: string) => {
    const key = name === "t" ? "test" : name;
    const s = Object.hasOwn(scripts, key) ? scripts[key] : undefined;
    if (typeof s !== "string" || name === "exec" || budget.left <= 0) return whole;
    budget.left -= s.length;
    // Kept beside its text: the reference still says which package manager the script calls.
    return `${whole} && ${expandScript(s, scripts, depth + 1, budget)}`;
  });
}

/** The parts of a script a shell runs one after another. */
export const partsOf = (text: string) =>
  text
    .split(/\s*(?:&&|\|\||;)\s*/)
    .map((p) => p.trim())
    .filter(Boolean);

/** A part of the script that runs `tool`, made runnable without the package manager (`npx vitest run`). */
export function directPart(text: string, matches: (part: string) => boolean): string | undefined {
  const part = partsOf(text).find((p) => matches(p) && !/^(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?[\w:.-]+$/.test(p));
  if (!part) return undefined;
  const bare = part.replace(PM_PREFIX, "");
  if (/^(?:node|npx|python3?|\.{0,2}\/)/.test(bare) || /^[A-Za-z_]\w*=/.test(bare)) return bare;
  return `npx ${bare}`;
}

/** The runner a package.json names: in its test script (expanded), else among its dependencies, else by its files. */
function runnerOf(expanded: string | undefined, pkg: PackageJson, repo: RepoView): { runner: RunnerDescriptor; from: string } | undefined {
  const byCmd = expanded ? runnerOfCommand(expanded) : undefined;
  if (byCmd) return { runner: byCmd, from: "scripts.test" };
  const byPkg = RUNNERS.find((r) => r.recognise.packages?.some((p) => pkg.deps.has(p)));
  if (byPkg) return { runner: byPkg, from: `devDependencies ${byPkg.recognise.packages!.find((p) => pkg.deps.has(p))}` };
  // Only JavaScript runners here (bun's bunfig.toml): a pytest.ini beside package.json is the Python side's.
  const byFile = RUNNERS.find(
    (r) => /^(?:npx|bun|node)\b/.test(r.command) && r.recognise.files?.some((f) => repo.has(f.file) && (!f.contains || f.contains.test(repo.read(f.file)))),
  );
  return byFile ? { runner: byFile, from: byFile.recognise.files!.find((f) => repo.has(f.file))!.file } : undefined;
}

/** Linters by the package that installs them; each needs its config only where it has no defaults. */
const LINTERS: { pkg: string; cmd: string; config?: RegExp }[] = [
  { pkg: "eslint", cmd: "npx eslint .", config: /^(?:eslint\.config\.[cm]?[jt]s|\.eslintrc(?:\.(?:c?js|json|ya?ml))?)$/ },
  { pkg: "@biomejs/biome", cmd: "npx biome lint .", config: /^biome\.jsonc?$/ },
  { pkg: "oxlint", cmd: "npx oxlint" },
  { pkg: "xo", cmd: "npx xo" },
];

export function detectJs(repo: RepoView): Detected | undefined {
  const pkg = readPackageJson(repo.read("package.json"));
  if (!pkg) return undefined;
  const out: Detected = { args: {}, why: {}, notes: [] };
  const pm = packageManagerOf(pkg, repo);
  const pmReady = repo.onPath(pm.name);
  const missingPm = pmReady ? undefined : pm.name;
  const script = (name: string) => pkg.scripts[name];
  /** A script run as the project runs it; without its package manager, by npm when the script does not call it, else its tool directly. */
  const viaScript = (name: string, matches: (part: string) => boolean): { cmd: string; how: string } | undefined => {
    const text = script(name)!;
    if (pmReady) return { cmd: runScript(pm.name, name), how: `run by ${pm.name} (${pm.from})` };
    // Plug'n'Play (yarn 2+ without node_modules) resolves nothing without yarn itself.
    if (pm.berry && !repo.has("node_modules")) return undefined;
    const expanded = expandScript(text, pkg.scripts);
    if (!new RegExp(`\\b${missingPm}\\b`).test(expanded) && !pm.berry)
      return { cmd: runScript("npm", name), how: `run by npm, as ${pm.name} (${pm.from}) is not installed` };
    const direct = directPart(expanded, matches);
    return direct ? { cmd: direct, how: `its runner run directly, as ${pm.name} (${pm.from}) is not installed` } : undefined;
  };

  // Tests.
  const testText = script("test") && !runsNothing(script("test")!) ? script("test")! : undefined;
  const expandedTest = testText ? expandScript(testText, pkg.scripts) : undefined;
  const found = runnerOf(expandedTest, pkg, repo);
  let hooks: HookPlan | undefined;
  if (testText) {
    const r = viaScript("test", (p) => (found ? found.runner.recognise.command.test(p) : false));
    if (r) {
      // npm's pretest / posttest run around the test script: those that only judge code are left out.
      hooks = hookPlan(r.cmd, pkg.scripts, () => otherPackageHook(repo));
      out.args.testCmd = hooks?.command ?? r.cmd;
      out.why.testCmd = `package.json scripts.test (${JSON.stringify(clip(testText))}) ${r.how}${hooks && !hooks.kept ? `, without its hooks (${NO_HOOKS})` : ""}`;
    }
  } else if (found) {
    out.args.testCmd = found.runner.command;
    out.why.testCmd = `no test script; ${found.from} names ${found.runner.name}, run as code-trm reads it best`;
  }
  if (found && out.args.testCmd) out.runner = found.runner;

  // Type check (the build signal): its script, else tsc with the project's tsconfig.json, else the build script.
  const typecheck = TYPECHECK_SCRIPTS.find((n) => script(n) && !WRITES.test(script(n)!));
  const tsc = pkg.deps.has("typescript") && repo.has("tsconfig.json");
  const typecheckRun = typecheck ? viaScript(typecheck, (p) => /\b(?:tsc|vue-tsc|tsd)\b/.test(p)) : undefined;
  if (typecheckRun) {
    out.args.buildCmd = typecheckRun.cmd;
    out.why.buildCmd = `package.json scripts.${typecheck} (${JSON.stringify(clip(script(typecheck!)!))}) ${typecheckRun.how}`;
  } else if (tsc) {
    out.args.buildCmd = "npx tsc --noEmit";
    out.why.buildCmd = "typescript in devDependencies and a tsconfig.json: the type check";
  } else if (script("build") && !WRITES.test(script("build")!)) {
    const r = viaScript("build", () => true);
    if (r) {
      out.args.buildCmd = r.cmd;
      out.why.buildCmd = `package.json scripts.build (${JSON.stringify(clip(script("build")!))}) ${r.how}`;
    }
  }

  // Lint: its script, else a linter the project installs (with its config where it needs one).
  const lintText = script("lint");
  const lintRun =
    lintText && !WRITES.test(lintText) ? viaScript("lint", (p) => LINTERS.some((l) => new RegExp(`\\b${l.cmd.split(" ")[1]}\\b`).test(p))) : undefined;
  if (lintRun) {
    out.args.lintCmd = lintRun.cmd;
    out.why.lintCmd = `package.json scripts.lint (${JSON.stringify(clip(lintText!))}) ${lintRun.how}`;
  } else {
    const files = repo.list("");
    const linter = LINTERS.find((l) => pkg.deps.has(l.pkg) && (!l.config || files.some((f) => l.config!.test(f)) || (l.pkg === "eslint" && pkg.eslintConfig)));
    if (linter) {
      out.args.lintCmd = linter.cmd;
      out.why.lintCmd = `${linter.pkg} in devDependencies${linter.config ? " with its config" : ""}`;
    }
  }

  if (hooks) out.notes.push(hooksNote(hooks, out, pkg.scripts));
  if (missingPm) {
    const pmCmd = testText ? runScript(pm.name, "test") : undefined;
    const alt = out.args.testCmd && out.args.testCmd !== pmCmd ? `, or keep testCmd: ${JSON.stringify(out.args.testCmd)} as chosen` : "";
    out.notes.push(
      `${pm.name} is not installed (${pm.from} names it; not on the server's PATH)${pmCmd ? `, so ${JSON.stringify(pmCmd)} would exit 127` : ""}: ${installFix(pm.name)} and pass testCmd: ${JSON.stringify(pmCmd ?? runScript(pm.name, "test"))}${alt}.`,
    );
  }
  if (!repo.has("node_modules") && Object.keys(out.args).length > 0) {
    out.notes.push(
      `node_modules is missing in your checkout: install the dependencies there (\`${pm.name === "npm" ? (pm.from === "no lockfile" ? "npm install" : "npm ci") : `${pm.name} install`}\`; the worktree links them), or pass setupCmd.`,
    );
  }
  return Object.keys(out.args).length > 0 ? out : undefined;
}

/** What the hooks left out of testCmd run, and where that is judged now: by lintCmd, else a check to add. */
function hooksNote(plan: HookPlan, out: Detected, scripts: Record<string, string>): string {
  const kept = hooksKept("test", plan);
  if (kept) return `testCmd ${JSON.stringify(out.args.testCmd)} runs its hooks: ${kept}`;
  const said = `npm runs ${hooksLeftOut("test", plan)}, and a failing hook fails "npm test" however the tests went (after every test passed, for posttest), so testCmd runs the test script ${plan.preKept ? "after pretest, " : ""}without them (${NO_HOOKS}, npm 7 and later; no script it runs through npm has hooks of its own, which the flag would leave out too).`;
  const left = [...(plan.pre !== undefined && !plan.preKept ? ["pretest"] : []), ...(plan.post !== undefined ? ["posttest"] : [])];
  // A hook that runs the lint script (or its text) is what lintCmd already judges.
  const lint = out.args.lintCmd && scripts.lint !== undefined ? [/^npm\s+run\s+lint$/, scripts.lint.trim()] : [];
  const judged = (h: string) => lint.some((l) => (typeof l === "string" ? scripts[h]!.trim() === l : l.test(scripts[h]!.trim())));
  const rest = left.filter((h) => !judged(h));
  if (rest.length === 0) return `${said} lintCmd ${JSON.stringify(out.args.lintCmd)} runs what ${left.join(" and ")} checks.`;
  const given = { ...out.args, checks: rest.map((h) => ({ name: h, cmd: `npm run ${h}`, weight: 0.1 })) };
  return `${said} To judge what ${rest.join(" and ")} checks too, pass ${JSON.stringify(given)}.`;
}

const clip = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}...` : s);

/**
 * A pre or post script of another package.json of the repository (a workspace's `posttest`), found within three
 * folders of the root (declared workspaces first; node_modules and hidden folders left out, 3,000 entries looked at): npm runs it
 * when the test script reaches that package (`npm test --workspaces`, `cd packages/core && npm test`).
 */
export function otherPackageHook(repo: RepoView): OtherHook | undefined {
  const hookOf = (rel: string): OtherHook | undefined => {
    const scripts = readPackageJson(repo.read(rel, 200_000))?.scripts ?? {};
    const hook = Object.keys(scripts).find((k) => isHook(k, scripts));
    return hook ? { hook, file: rel } : undefined;
  };
  // The declared workspaces first (`packages/*`, `apps/web`): a folder of examples sorted before them, or a
  // package named `packages/socket.io`, must not hide them (h27).
  for (const p of workspacePatterns(repo.read("package.json", 200_000), repo.read("pnpm-workspace.yaml", 64_000))) {
    if (p.startsWith("!")) continue;
    const pattern = p.replace(/^\.\//, "");
    const base = pattern.replace(/\/\*\*?$/, "");
    if (base.includes("*") || base.split("/").includes("..")) continue;
    const dirs = base === pattern ? [base] : repo.list(base).map((d) => `${base}/${d}`);
    for (const d of dirs.slice(0, 500)) {
      const found = repo.has(`${d}/package.json`) ? hookOf(`${d}/package.json`) : undefined;
      if (found) return found;
    }
  }
  let looked = 0;
  const queue: [string, number][] = [["", 0]];
  while (queue.length > 0 && looked < 3000) {
    const [dir, depth] = queue.shift()!;
    for (const name of repo.list(dir)) {
      if (name === "node_modules" || name.startsWith(".") || ++looked > 3000) continue;
      const rel = dir ? `${dir}/${name}` : name;
      if (name === "package.json" && dir !== "") {
        const found = hookOf(rel);
        if (found) return found;
      } else if (depth < 3) queue.push([rel, depth + 1]);
    }
  }
  return undefined;
}
