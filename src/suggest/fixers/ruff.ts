import { PY_EXTENSIONS, pythonProblems, RUFF_FIXES, whatOf } from "./python-codes.js";
import { failedCalls, filesNamedIn, filesOf, type ToolFixer } from "./types.js";

/** `ruff check --fix`, restricted to the codes that were reported and that ruff fixes safely. */
export const ruffCheck: ToolFixer = {
  name: "ruff",
  tool: "ruff",
  label: "ruff check --fix",
  names: RUFF_FIXES,
  extensions: PY_EXTENSIONS,
  targets({ diagnostics }) {
    const problems = pythonProblems(diagnostics, RUFF_FIXES);
    if (problems.length === 0) return null;
    const codes = [...new Set(problems.map((d) => d.code!))].sort();
    return { problems, files: filesOf(problems, PY_EXTENSIONS), what: whatOf(problems, RUFF_FIXES), codes };
  },
  command: ({ bin, target, files }) => ({
    // --exit-zero: problems it cannot fix are not a failure of the fixer; no cache is left behind.
    argv: [bin, "check", "--fix", "--exit-zero", "--no-cache", "--select", (target.codes ?? []).join(","), "--", ...files.map((f) => `./${f}`)],
  }),
  version: (bin) => [bin, "--version"],
  okExit: [0],
  timeoutMs: 60_000,
};

/** `ruff format`, only when the session's own command is `ruff format --check` (or --diff) and it failed. */
export const ruffFormat: ToolFixer = {
  name: "ruff-format",
  tool: "ruff",
  label: "ruff format",
  extensions: PY_EXTENSIONS,
  targets({ commands }) {
    const calls = failedCalls(commands, /\bruff\s+format\b/);
    if (calls.length === 0) return null;
    const named = calls.flatMap((c) => filesNamedIn(c.output, PY_EXTENSIONS));
    return { problems: [], files: named.length ? [...new Set(named)] : null, what: "formatting (ruff format --check failed)" };
  },
  command: ({ bin, files }) => ({ argv: [bin, "format", "--no-cache", "--", ...files.map((f) => `./${f}`)] }),
  version: (bin) => [bin, "--version"],
  okExit: [0],
  timeoutMs: 60_000,
};
