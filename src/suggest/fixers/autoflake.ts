import { AUTOFLAKE_FIXES, PY_EXTENSIONS, pythonProblems, whatOf } from "./python-codes.js";
import { filesOf, type ToolFixer } from "./types.js";

/**
 * autoflake for unused imports and variables. By default it removes only standard-library imports;
 * the linter already said these are unused, so all of them go (the rationale says so).
 */
export const autoflake: ToolFixer = {
  name: "autoflake",
  tool: "autoflake",
  label: "autoflake",
  names: AUTOFLAKE_FIXES,
  extensions: PY_EXTENSIONS,
  targets({ diagnostics }) {
    const problems = pythonProblems(diagnostics, AUTOFLAKE_FIXES);
    if (problems.length === 0) return null;
    return {
      problems,
      files: filesOf(problems, PY_EXTENSIONS),
      what: whatOf(problems, AUTOFLAKE_FIXES),
      codes: [...new Set(problems.map((d) => d.code!))].sort(),
    };
  },
  command: ({ bin, target, files }) => ({
    argv: [
      bin,
      "--in-place",
      "--remove-all-unused-imports",
      ...(target.codes?.includes("F841") ? ["--remove-unused-variables"] : []),
      "--",
      ...files.map((f) => `./${f}`),
    ],
  }),
  version: (bin) => [bin, "--version"],
  okExit: [0],
  timeoutMs: 60_000,
};
