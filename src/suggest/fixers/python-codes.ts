import type { Diagnostic } from "../../evaluate/types.js";

/**
 * Problems of Python linters (flake8 and ruff share pyflakes' and pycodestyle's codes) that a fixer
 * removes without changing what the code does: ruff's safe fixes, and autoflake's two removals.
 */

export const PY_EXTENSIONS = [".py", ".pyi"];
const PY_SOURCES = new Set(["flake8", "ruff"]);

export const RUFF_FIXES: Record<string, string> = {
  F401: "unused import",
  F541: "f-string without placeholders",
  F632: "`is` comparison with a literal",
  E703: "useless semicolon",
  E713: "`not in` test",
  E714: "`is not` test",
  W291: "trailing whitespace",
  W292: "no newline at end of file",
  W293: "whitespace on a blank line",
  W605: "invalid escape sequence",
  I001: "unsorted imports",
};

export const AUTOFLAKE_FIXES: Record<string, string> = {
  F401: "unused import",
  F841: "unused variable",
};

/** The Python lint problems whose code is in `table`. */
export function pythonProblems(ds: Diagnostic[], table: Record<string, string>): Diagnostic[] {
  return ds.filter(
    (d) =>
      PY_SOURCES.has(d.source) &&
      d.code !== undefined &&
      Object.hasOwn(table, d.code) &&
      d.file !== undefined &&
      PY_EXTENSIONS.some((e) => d.file!.endsWith(e)),
  );
}

/** "unused import, unused variable": the problems by kind, in the table's order. */
export function whatOf(ds: Diagnostic[], table: Record<string, string>): string {
  const codes = new Set(ds.map((d) => d.code));
  return Object.entries(table)
    .filter(([c]) => codes.has(c))
    .map(([c, w]) => `${c} ${w}`)
    .join(", ");
}
