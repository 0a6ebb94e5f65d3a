/**
 * Commands that cannot run, found at start rather than by a baseline scored 0: the programs each
 * command (and the package.json script it runs) starts, looked up on PATH and in the checkout's
 * node_modules/.bin, never run. Only plain words are judged (no paths, variables or shell syntax, which
 * missing-paths.ts and the run itself report); what is missing is named with how to get it.
 */
import { installFix } from "../evaluate/missing-program.js";
import { scriptsOf } from "../evaluate/package-json.js";
import { RUNNERS } from "../evaluate/runners/index.js";
import type { RepoView } from "./detect-commands.js";
import { directPart, expandScript, partsOf } from "./detect-js.js";

const BUILTINS = new Set([
  "cd",
  "echo",
  "printf",
  "test",
  "true",
  "false",
  "exit",
  "export",
  "set",
  "unset",
  "source",
  ".",
  ":",
  "exec",
  "eval",
  "if",
  "then",
  "else",
  "fi",
  "for",
  "do",
  "done",
  "while",
  "until",
  "case",
  "esac",
  "time",
  "command",
  "type",
  "[",
  "!",
  "{",
  "}",
  "ulimit",
  "umask",
  "wait",
  "read",
  "shift",
  "trap",
  "return",
  "local",
]);
const PMS = new Set(["npm", "pnpm", "yarn", "bun"]);

/** The words a part of a command starts with: its program and, for `npx x` / `python -m x`, the program it runs. */
function wordsOf(part: string): string[] {
  const words = part.split(/\s+/).filter(Boolean);
  let k = 0;
  while (k < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[k]!)) k++;
  if (words[k] === "env") k++;
  while (k < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[k]!)) k++;
  return words.slice(k);
}

const plain = (w: string | undefined): w is string => !!w && /^[A-Za-z0-9_][\w.+@-]*$/.test(w) && !BUILTINS.has(w);

interface Missing {
  program: string;
  /** The package.json script it was found in, when not the command itself. */
  script?: string;
}

/** What one look at a command shares with the scripts it runs: package.json read once, each script looked at once. */
interface Walk {
  scripts: Record<string, string>;
  seen: Set<string>;
  /** Parts of commands still to look at: each is a PATH lookup, and a real script has a few dozen at most. */
  parts: number;
}

/** The programs `cmd` needs that are not installed. */
export function missingPrograms(cmd: string, repo: RepoView, opts: { setup: boolean; depth?: number; walk?: Walk } = { setup: false }): Missing[] {
  const out: Missing[] = [];
  const depth = opts.depth ?? 0;
  // A script that runs another hundreds of times (or thousands of scripts) is read in linear time.
  const walk = opts.walk ?? { scripts: scriptsOf(repo.read("package.json")), seen: new Set<string>(), parts: 256 };
  const inBin = (w: string) => repo.has(`node_modules/.bin/${w}`);
  for (const part of partsOf(cmd.replace(/[()]/g, " "))) {
    if (walk.parts-- <= 0) break;
    const [prog, ...rest] = wordsOf(part);
    if (!plain(prog)) continue;
    // In a script npm, pnpm and yarn put node_modules/.bin on PATH; a setupCmd may install what is missing now.
    const found = repo.onPath(prog) || (depth > 0 && inBin(prog));
    if (!found && !(depth > 0 && opts.setup)) {
      out.push({ program: prog });
      continue;
    }
    if (prog === "npx" || prog === "bunx" || (PMS.has(prog) && rest[0] === "exec")) {
      // npx downloads a missing package from the registry: in a session that is a missing dependency.
      const tool = rest.find((w) => !w.startsWith("-") && w !== "exec" && w !== "--");
      if (plain(tool) && !inBin(tool) && !repo.onPath(tool) && !opts.setup) out.push({ program: tool });
    } else if (/^python3?$/.test(prog) && rest[0] === "-m" && /^(?:pytest|py\.test)$/.test(rest[1] ?? "")) {
      if (!repo.onPath("pytest") && !repo.has(".venv/bin/pytest")) out.push({ program: "pytest" });
    } else if (PMS.has(prog) && depth < 2) {
      // `npm test`, `pnpm run lint`, `yarn build`: the script's own programs too.
      const name = rest[0] === "run" || rest[0] === "run-script" ? rest.find((w, i) => i > 0 && !w.startsWith("-")) : rest[0];
      const key = name === "t" ? "test" : name;
      const text = key && Object.hasOwn(walk.scripts, key) ? walk.scripts[key] : undefined;
      if (text !== undefined && !(prog === "bun" && name === "test") && !walk.seen.has(key!)) {
        walk.seen.add(key!);
        for (const m of missingPrograms(text, repo, { setup: opts.setup, depth: depth + 1, walk })) out.push({ program: m.program, script: m.script ?? name });
      }
    }
  }
  const named = new Set<string>();
  return out.filter((m) => !named.has(m.program) && !!named.add(m.program));
}

/**
 * One note per command that cannot run as given: what is missing, how to get it, and for a test
 * script that only its package manager is missing for, the runner's command that works without it.
 */
export function missingToolNotes(commands: Record<string, string | undefined>, repo: RepoView, setup: boolean): string[] {
  const notes: string[] = [];
  const node = repo.has("package.json");
  for (const [key, cmd] of Object.entries(commands)) {
    if (!cmd) continue;
    const missing = missingPrograms(cmd, repo, { setup });
    if (missing.length === 0) continue;
    const first = missing[0]!;
    const where = first.script ? ` (in package.json scripts.${first.script})` : "";
    let alt = "";
    if (key === "testCmd" && PMS.has(first.program)) {
      const scripts = scriptsOf(repo.read("package.json"));
      const expanded = scripts.test ? expandScript(scripts.test, scripts) : "";
      const direct = directPart(expanded, (p) => RUNNERS.some((r) => r.recognise.command.test(p)));
      if (direct && !missingPrograms(direct, repo, { setup }).length) alt = `, or pass testCmd: ${JSON.stringify(direct)}`;
    }
    // A script of thousands of unknown words is named by its first few, not word by word.
    const more = missing.length > 6 ? ` and ${missing.length - 6} more` : "";
    const also =
      missing.length > 1
        ? ` (also not found: ${missing
            .slice(1, 6)
            .map((m) => m.program)
            .join(", ")}${more})`
        : "";
    notes.push(
      `${key} ${JSON.stringify(cmd)} needs ${first.program}${where}, which is not installed (not found on the server's PATH${node ? " or in node_modules/.bin" : ""}), so it would exit 127: ${installFix(first.program, node)}${alt}.${also}`,
    );
  }
  return notes;
}
