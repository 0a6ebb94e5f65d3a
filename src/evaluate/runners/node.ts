import { parseNodeSpec } from "../parsers/tests/node-spec.js";
import { anyOf, type RunnerDescriptor } from "./types.js";

/**
 * What `node --test` runs with no file argument (node 20's discovery; node 22's default globs are the same
 * for JavaScript): every .js, .cjs and .mjs file under a folder named `test`, and every file named `test`,
 * `test-*`, `*.test`, `*-test` or `*_test` with one of those extensions, outside node_modules.
 */
const discovered = (file: string): boolean => {
  const dirs = file.split("/");
  const base = dirs.pop()!;
  if (dirs.includes("node_modules") || !/\.[cm]?js$/.test(base)) return false;
  return dirs.includes("test") || /^(?:test(?:-.+)?|.+[.\-_]test)\.[cm]?js$/.test(base);
};

/** Node's options that take no value, beside `--opt=value` (a word after any other option may be its value or a file). */
const FLAGS =
  /^(?:--no-[\w-]+|--experimental-(?:test-coverage|test-snapshots|test-module-mocks|strip-types|transform-types|vm-modules|detect-module|require-module)|--test-(?:only|force-exit|update-snapshots)|--enable-source-maps|--trace-(?:warnings|uncaught|deprecation|exit)|--(?:throw|pending)-deprecation|--expose-gc|--preserve-symlinks(?:-main)?|--abort-on-uncaught-exception|--frozen-intrinsics)$/;

/**
 * The failing tests' files as node's file arguments, or undefined where they would not restrict the run
 * to them, or would change what runs:
 * - the command names files, folders or globs of its own (node 20 runs a folder's test files and each file
 *   given, so one more file runs beside them, not instead), or a word after `--test` may be one (an option
 *   that may take the next word as its value, quotes, expansions);
 * - a file discovery would not run (a helper declaring tests for the files that import it): given, node
 *   would run it as a test file;
 * - a file node 22 would read as a glob (`*?[]{}()!+@`), or would take for an option (a leading `-`);
 * - a path through `.` or `..` (node prints each file's own path: a test printed that location itself), which
 *   may name any file, a library under `test/..` or one outside the worktree, for node to run as a test file.
 * A file that is a test file but not where its tests are run from (a helper under `test/`) selects none of
 * them: the run misses the selected tests, and the whole suite runs (failing-first.ts).
 */
function nodeFiles(files: string[], part: string): string[] | undefined {
  const at = /(?:^|\s)--test(?=\s|$)/.exec(part);
  if (!at) return undefined;
  const rest = part.slice(at.index + at[0].length);
  if (/['"\\`$*?[\]{}~]/.test(rest)) return undefined;
  const words = rest.trim().split(/\s+/).filter(Boolean);
  if (words.some((w) => !w.startsWith("-") || !(w.includes("=") || FLAGS.test(w)))) return undefined;
  if (files.some((f) => !discovered(f) || f.startsWith("-") || /[*?[\]{}()!+@\\]/.test(f) || f.split("/").some((s) => s === ".." || s === "." || s === "")))
    return undefined;
  return files;
}

export const node: RunnerDescriptor = {
  id: "node",
  name: "node --test",
  command: "node --test --test-reporter=tap",
  recognise: { command: /\bnode\s+--test\b/ },
  parse: { text: [parseNodeSpec] },
  formats: "node --test spec",
  namesTests: "spec, --test-reporter=tap, --test-reporter=junit",
  tap: "node --test --test-reporter=tap",
  junit: "node --test --test-reporter=junit",
  readableReport: "node --test: add --test-reporter=tap",
  // Chosen by the command's own arguments and package.json (generic).
  testConfigFiles: [],
  // Node 22+ matches the pattern against the full name (ancestors' names and the test's joined by spaces),
  // Node 20 against the test's own name: both forms are given (the leaf alone may select more, never less).
  selectByName: (names) => ["--test-name-pattern", anyOf([...new Set(names.flatMap((n) => [n.split(" > ").join(" "), n.split(" > ").pop()!]))])],
  // The failing tests' files (where each was declared: its TAP `location`, its spec `test at`), so that no
  // other file starts a process. Only where they restrict what runs (nodeFiles).
  selectFiles: (files, part) => nodeFiles(files, part),
  // Options after a file argument are taken for another file (`Could not find '…/--test-name-pattern'`).
  selectAt: { after: /--test(?=\s|$)/ },
  coverage: { args: ["--experimental-test-coverage"], prints: "a table of line, branch and function % per file, in the reporter's comments (TAP `# `)" },
};
