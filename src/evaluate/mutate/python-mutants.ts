/**
 * The mutants of Python files, made by Python's own `ast` (python-program.ts): python3 on PATH runs the
 * program isolated (`-I -S -B`: no PYTHON* variables, no site packages, no current folder on its path,
 * no bytecode written) in a temporary folder outside any checkout, so nothing of the project is imported
 * or run; the files' text goes in a JSON file. What it prints is the change's text turned into positions:
 * read bounded, and each mutant checked (its line one of the asked, its columns inside the line, a known
 * mutator, a replacement from the short list the program makes) before run-mutants.ts writes it into a file.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCommand } from "../../exec/run.js";
import { shellQuote } from "../../util/text.js";
import { PRIORITY, type RawMutant } from "./choose.js";
import { PYTHON_MUTATOR } from "./python-program.js";

/** The largest Python file mutated (characters): a bigger one is skipped with a note. */
export const MAX_PY_SOURCE = 1_000_000;
/** Mutants kept per line, best first (choose.ts picks one; the rest stand in for one its rules drop). */
const PER_LINE = 4;
/** The program stops checking mutants after this long, the process is stopped after TIMEOUT_MS. */
const PARSE_BUDGET_SEC = 30;
const TIMEOUT_MS = 60_000;

const MUTATORS = new Set([
  "ConditionalExpression",
  "EqualityOperator",
  "LogicalOperator",
  "ArithmeticOperator",
  "BooleanLiteral",
  "UnaryOperator",
  "AssignmentOperator",
  "ArrayDeclaration",
  "ObjectLiteral",
  "ReturnValue",
  "StringLiteral",
]);
/** Every replacement the program makes: a mutant with another is not the program's, and is dropped. */
const REPLACEMENTS = new Set(
  ["True", "False", "None", "[]", "{}", "and", "or", "is", "is not", "in", "not in", "<", "<=", ">", ">=", "==", "!="].concat([
    "+",
    "-",
    "*",
    "/",
    "+=",
    "-=",
    "*=",
    "/=",
    "<<=",
    ">>=",
    "&=",
    "|=",
    "",
    '""',
    'b""',
    '"Stryker was here!"',
    'b"Stryker was here!"',
  ]),
);

export interface PythonMutants {
  mutants: (RawMutant & { fileName: string })[];
  /** Files that got no mutants, and why. */
  notes: string[];
}

/** The program's mutants of one file, those that pass the checks. Pure. */
export function checkedMutants(fileName: string, content: string, lines: number[], raw: unknown, index: number): (RawMutant & { fileName: string })[] {
  if (!Array.isArray(raw)) return [];
  const text = content.split("\n");
  const asked = new Set(lines);
  const out: (RawMutant & { fileName: string })[] = [];
  // A column inside a surrogate pair, or past the line's end, is no place in this text.
  const place = (l: unknown, c: unknown) => {
    if (!Number.isInteger(l) || !Number.isInteger(c)) return false;
    const line = text[l as number];
    if (line === undefined || (c as number) < 0 || (c as number) > line.length) return false;
    const code = line.charCodeAt(c as number);
    return !(code >= 0xdc00 && code <= 0xdfff);
  };
  for (const m of raw.slice(0, asked.size * PER_LINE)) {
    if (!Array.isArray(m) || m.length !== 6) continue;
    const [l0, c0, l1, c1, mutator, replacement] = m as [number, number, number, number, unknown, unknown];
    if (!place(l0, c0) || !place(l1, c1) || l1 < l0 || (l1 === l0 && c1 < c0) || !asked.has(l0 + 1)) continue;
    if (typeof mutator !== "string" || !MUTATORS.has(mutator) || typeof replacement !== "string" || !REPLACEMENTS.has(replacement)) continue;
    out.push({
      id: `py${index}.${out.length}`,
      fileName,
      mutatorName: mutator,
      replacement,
      location: { start: { line: l0, column: c0 }, end: { line: l1, column: c1 } },
    });
  }
  return out;
}

/** A Python file to mutate: its text, the changed lines that ran, and other changed lines (`more`). */
export interface PythonFile {
  content: string;
  lines: number[];
  /** Changed lines coverage.py does not count (continuation lines), mutated where they continue a statement that ran. */
  more?: number[];
}

/** The mutants of the given 1-based lines of each Python file (name → text), by Python's `ast`; `budgetSec`: PARSE_BUDGET_SEC. */
export async function pythonMutants(files: Map<string, PythonFile>, signal?: AbortSignal, budgetSec = PARSE_BUDGET_SEC): Promise<PythonMutants> {
  const notes: string[] = [];
  const names: string[] = [];
  for (const [name, f] of files) {
    if (f.content.length > MAX_PY_SOURCE) notes.push(`${name} is over ${MAX_PY_SOURCE / 1_000_000} MB: no mutants were made of it.`);
    else if (f.content.includes("\uFFFD")) notes.push(`${name} is not UTF-8 text: no mutants were made of it.`);
    else names.push(name);
  }
  if (names.length === 0) return { mutants: [], notes };
  const dir = await mkdtemp(path.join(os.tmpdir(), "trm-pymut-"));
  try {
    const program = path.join(dir, "mutants.py");
    const input = path.join(dir, "in.json");
    await writeFile(program, PYTHON_MUTATOR);
    await writeFile(
      input,
      JSON.stringify({
        priority: PRIORITY,
        perLine: PER_LINE,
        budget: budgetSec,
        files: names.map((n) => ({ text: files.get(n)!.content, lines: files.get(n)!.lines, more: files.get(n)!.more ?? [] })),
      }),
    );
    const r = await runCommand(`python3 -I -S -B ${shellQuote(program)} ${shellQuote(input)}`, {
      cwd: dir,
      timeoutMs: TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    });
    const failed = (why: string): PythonMutants => ({ mutants: [], notes: [...notes, `No Python mutants: ${why}; the Python files get coverage only.`] });
    if (r.exitCode === 127 || r.spawnError) return failed("python3 is not on PATH (it parses the files with its own ast module)");
    if (r.timedOut) return failed(`python3 did not finish within ${TIMEOUT_MS / 1000} s`);
    let out: { files?: unknown };
    try {
      if (r.exitCode !== 0 || r.truncated) throw new Error();
      out = JSON.parse(r.output.stdout) as { files?: unknown };
    } catch {
      return failed(`python3 ended with exit ${r.exitCode ?? r.signal}${r.truncated ? " and too much output" : ""} (Python 3.8 or later parses the files)`);
    }
    if (!Array.isArray(out.files) || out.files.length !== names.length) return failed("python3 printed something else than the program's answer");
    const results = out.files as unknown[];
    const mutants: (RawMutant & { fileName: string })[] = [];
    results.forEach((res, i) => {
      const name = names[i]!;
      const f = files.get(name)!;
      const o = (res && typeof res === "object" ? res : {}) as { mutants?: unknown; skip?: unknown; cut?: unknown };
      if (typeof o.skip === "string") notes.push(`${name}: no mutants were made of it: ${o.skip.slice(0, 120)}.`);
      mutants.push(...checkedMutants(name, f.content, [...f.lines, ...(f.more ?? [])], o.mutants, i));
      if (o.cut === true) notes.push(`${name}: the mutants of some lines were not checked within ${budgetSec} s, and were left out.`);
    });
    return { mutants, notes };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
