/**
 * The commands a repository declares, for a start that names none (issue 24: a start with only
 * `repoPath` works): JavaScript (detect-js.ts), Python (detect-python.ts), Go, Rust, else a Makefile's
 * `test` target. Returned as the exact arguments a client would have sent, each with one line of why.
 * Pure: the repository is read through a RepoView (detect-io.ts reads the checkout's files and looks
 * programs up on PATH); nothing of the repository is run.
 */
import type { RunnerDescriptor } from "../evaluate/runners/index.js";
import { detectJs } from "./detect-js.js";
import { detectPython } from "./detect-python.js";

/** What detection may know of a repository: its files' text, which paths exist, and which programs PATH has. */
export interface RepoView {
  /** A file's text ("" when absent or unreadable), at most `max` bytes. */
  read(rel: string, max?: number): string;
  /** Whether a path exists (file, folder or link). */
  has(rel: string): boolean;
  /** The names in a folder ("" is the root); [] when it is not one. */
  list(rel: string): string[];
  /** Whether a program is found on PATH (looked up, never run). */
  onPath(program: string): boolean;
}

export type DetectedArg = "testCmd" | "buildCmd" | "lintCmd";

export interface Detected {
  /** The arguments as a client would send them. */
  args: Partial<Record<DetectedArg, string>>;
  /** Why each was chosen, one short line each. */
  why: Partial<Record<DetectedArg, string>>;
  /** Said beside them: a report the runner offers, a tool that is not installed. */
  notes: string[];
  /** The test runner the test command runs, when known. */
  runner?: RunnerDescriptor;
  /** The test command already prints what code-trm reads best (pytest -rA): no note offers it. */
  readable?: boolean;
}

function detectGo(repo: RepoView): Detected | undefined {
  if (!repo.has("go.mod")) return undefined;
  return {
    args: { testCmd: "go test ./...", buildCmd: "go vet ./..." },
    why: { testCmd: "go.mod", buildCmd: "go.mod: go vet compiles every package and reports suspicious code" },
    notes: [],
  };
}

function detectCargo(repo: RepoView): Detected | undefined {
  if (!repo.has("Cargo.toml")) return undefined;
  return { args: { testCmd: "cargo test" }, why: { testCmd: "Cargo.toml" }, notes: [] };
}

function detectMake(repo: RepoView): Detected | undefined {
  const file = ["GNUmakefile", "Makefile", "makefile"].find((f) => repo.has(f));
  if (!file || !/^test\s*:(?!=)/m.test(repo.read(file))) return undefined;
  return { args: { testCmd: "make test" }, why: { testCmd: `${file} has a test target` }, notes: [] };
}

/** What the runner offers that code-trm reads exactly, said without changing the command the project runs. */
function reportNote(runner: RunnerDescriptor, testCmd: string): string | undefined {
  const exact = !!(runner.parse.structured?.length || runner.junit || runner.tap);
  if (!exact || testCmd === runner.command) return undefined;
  return `${runner.name} can also print a report code-trm reads exactly (${runner.readableReport}); testCmd is kept as the project runs it.`;
}

/**
 * The commands the repository declares. The first ecosystem that gives a test command wins (a
 * package.json kept only for tooling beside a pyproject.toml gives none); a Makefile's test target
 * stands in when none does. Undefined when nothing is found.
 */
export function detectCommands(repo: RepoView): Detected | undefined {
  const found = [detectJs(repo), detectPython(repo), detectGo(repo), detectCargo(repo)].filter((d): d is Detected => !!d);
  let pick = found.find((d) => d.args.testCmd) ?? found[0];
  if (!pick?.args.testCmd) {
    const make = detectMake(repo);
    if (make) pick = pick ? { ...pick, args: { ...pick.args, ...make.args }, why: { ...pick.why, ...make.why }, notes: [...pick.notes, ...make.notes] } : make;
  }
  if (!pick) return undefined;
  const report = pick.runner && pick.args.testCmd && !pick.readable ? reportNote(pick.runner, pick.args.testCmd) : undefined;
  return { ...pick, notes: [...pick.notes, ...(report ? [report] : [])] };
}

/** A view of the folder `dir` of a repository. */
const below = (repo: RepoView, dir: string): RepoView => ({
  read: (rel, max) => repo.read(`${dir}/${rel}`, max),
  has: (rel) => repo.has(`${dir}/${rel}`),
  list: (rel) => repo.list(rel ? `${dir}/${rel}` : dir),
  onPath: (p) => repo.onPath(p),
});

/**
 * When the root declares nothing: the commands of a project one folder down (a Go module in `backend/`),
 * each prefixed with `cd <dir> && `, for the refusal to offer. Never used as detected: which of several
 * projects judges a change is the caller's choice. Folder names a shell would read as syntax are skipped.
 */
export function nestedCommands(repo: RepoView): { dir: string; args: Detected["args"] } | undefined {
  for (const dir of repo.list("").slice(0, 200)) {
    if (!/^[\w][\w.-]*$/.test(dir) || dir === "node_modules" || repo.list(dir).length === 0) continue;
    const d = detectCommands(below(repo, dir));
    if (d?.args.testCmd) return { dir, args: Object.fromEntries(Object.entries(d.args).map(([k, v]) => [k, `cd ${dir} && ${v}`])) };
  }
  return undefined;
}

/** The detected arguments and their reasons as the start result's text shows them. */
export function detectedLines(d: Detected): string[] {
  return [
    `commands detected (none given), as you would pass them: ${JSON.stringify(d.args)}`,
    ...(Object.keys(d.args) as DetectedArg[]).map((k) => `  ${k}: ${d.why[k] ?? ""}`),
  ];
}
