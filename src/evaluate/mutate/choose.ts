/**
 * Which mutants of a change are worth a test run: at most one per changed, covered line (the line's
 * most telling mutator first), none on "arid" lines whose mutants no reviewer would act on (logging,
 * imports, declarations of types), as diff-based mutation testing in code review does (Petrović and
 * Ivanković, ICSE-SEIP 2018). Pure.
 */

/** A mutant as the instrumenter gives it: 0-based lines, 0-based columns, end exclusive. */
export interface RawMutant {
  id: string;
  mutatorName: string;
  replacement: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

export interface ChosenMutant {
  id: string;
  file: string;
  /** 1-based line of the mutant's start. */
  line: number;
  mutator: string;
  /** The lines it changes, before and after, as a unified diff body (`-` and `+` lines). */
  diff: string;
}

/**
 * Mutators by how much a surviving one says about the tests: a flipped condition before a string.
 * ReturnValue (`return x` → `return None`) is Python's (python-program.ts), which has no BlockStatement.
 */
export const PRIORITY = [
  "ConditionalExpression",
  "EqualityOperator",
  "LogicalOperator",
  "ArithmeticOperator",
  "BooleanLiteral",
  "UnaryOperator",
  "UpdateOperator",
  "AssignmentOperator",
  "OptionalChaining",
  "MethodExpression",
  "ArrayDeclaration",
  "ObjectLiteral",
  "ArrowFunction",
  "BlockStatement",
  "ReturnValue",
  "StringLiteral",
  "Regex",
];
const rank = (m: string) => {
  const i = PRIORITY.indexOf(m);
  return i < 0 ? PRIORITY.length : i;
};

/**
 * Python's: imports, comments, `__all__`, decorators, logging and warnings, `if __name__ == "__main__":`.
 * JavaScript's rules are not applied: black starts a continuation line with its operator (`* qty`, `// 2`).
 */
const PY_ARID =
  /^(?:import\b|from\s+\S+\s+import\b|#|@|__all__\b|if\s+__name__\s*==)|\b(?:logging|logger|log|LOGGER|_logger|warnings)\.(?:debug|info|warning|warn|error|exception|critical|log|getLogger)\s*\(/;

/** Lines whose mutants say nothing about behaviour a test should pin (of a Python file, `python`). */
export function isArid(line: string, python = false): boolean {
  const t = line.trim();
  if (python) return PY_ARID.test(t);
  return (
    /^(import\b|export\s+(\*|\{[^}]*\}\s*from|type\b|interface\b)|declare\b|type\s+\w+\s*=|interface\b)/.test(t) ||
    /^(?:const|let|var)\s+\w+\s*=\s*require\(/.test(t) ||
    /\b(console|logger|log|debug)\.(log|info|warn|error|debug|trace|verbose)\s*\(/.test(t) ||
    /^(?:\/\/|\/\*|\*)/.test(t)
  );
}

/** A string literal's mutant on an error message or a log line is noise; elsewhere it may matter. */
const stringNoise = (m: RawMutant, line: string) => m.mutatorName === "StringLiteral" && /\bthrow\b|\braise\b|Error\(|\bwarn\(|\bmessage\b/.test(line);

/** Lines of each side of a mutant's diff that are quoted. */
const MAX_DIFF_SIDE = 8;

/** The replaced text of `content` as `-`/`+` lines (a long side clipped). */
export function mutantDiff(content: string, m: RawMutant): string {
  const lines = content.split("\n");
  const { start, end } = m.location;
  const before = lines.slice(start.line, end.line + 1);
  const first = before[0] ?? "";
  const last = before[before.length - 1] ?? "";
  const after = `${first.slice(0, start.column)}${m.replacement}${last.slice(end.column)}`;
  // A block's mutant spans its whole body: a comment quotes its first and last lines, not all of them.
  const clip = (ls: string[], sign: string) =>
    ls.length <= MAX_DIFF_SIDE
      ? ls.map((l) => `${sign}${l}`)
      : [...ls.slice(0, MAX_DIFF_SIDE - 2).map((l) => `${sign}${l}`), `${sign} … ${ls.length - MAX_DIFF_SIDE + 1} more lines …`, `${sign}${ls[ls.length - 1]}`];
  return [...clip(before, "-"), ...clip(after.split("\n"), "+")].join("\n");
}

/**
 * One mutant per line of `lines` (1-based), the best by PRIORITY (ties: the instrumenter's order), for
 * the lines that are not arid. `content` is the file's text the mutants were made from.
 */
export function chooseMutants(file: string, content: string, mutants: readonly RawMutant[], lines: Iterable<number>): ChosenMutant[] {
  const text = content.split("\n");
  const want = new Set(lines);
  const python = file.endsWith(".py");
  const best = new Map<number, RawMutant>();
  for (const m of mutants) {
    const line = m.location.start.line + 1;
    if (!want.has(line)) continue;
    const src = text[line - 1] ?? "";
    if (isArid(src, python) || stringNoise(m, src)) continue;
    const cur = best.get(line);
    if (!cur || rank(m.mutatorName) < rank(cur.mutatorName)) best.set(line, m);
  }
  return [...best.entries()].sort((a, b) => a[0] - b[0]).map(([line, m]) => ({ id: m.id, file, line, mutator: m.mutatorName, diff: mutantDiff(content, m) }));
}
