import ts from "typescript";
import { codeSpan } from "../../util/text.js";
import { sourceFileOf } from "../ast/parse.js";
import type { FileContext } from "../context.js";
import type { ReviewComment } from "../types.js";
import { finding, RULES } from "./catalog.js";

/**
 * Missing tests, judged per source file: a source file with enough new executable lines needs a
 * changed test file that is its own, by name (`parse.ts` ↔ `parse.test.ts`, `__tests__/parse.ts`) or
 * by import (the test imports `./parse`). One test file elsewhere in the change does not cover it.
 * A `fix` is held to a lower threshold: a fix without a regression test is the classic way a bug
 * comes back. Type declarations, imports and comments are not executable lines.
 */
export const MIN_SOURCE_LINES = 25;
export const MIN_FIX_LINES = 6;
const MAX_REPORTED = 3;

function isSource(ctx: FileContext): boolean {
  const { kind, file } = ctx;
  return kind.isCode && !kind.isTest && !kind.isGenerated && !kind.isScript && !/\.d\.[cm]?ts$/.test(file.path) && file.status !== "deleted";
}

const stemOf = (p: string): string =>
  p
    .slice(p.lastIndexOf("/") + 1)
    .replace(/\.[^.]+$/, "")
    .replace(/[._-](test|spec|e2e)$/i, "")
    .replace(/^test_/, "")
    .toLowerCase();

/** The name a test would use for this source: its stem, or its folder's name for an index file. */
function namesOf(path: string): string[] {
  const stem = stemOf(path);
  if (stem !== "index") return [stem];
  const parts = path.split("/");
  return parts.length > 1 ? [parts[parts.length - 2]!.toLowerCase()] : [stem];
}

/** Stems of the modules a test file imports (relative specifiers only). */
function importedStems(ctx: FileContext): Set<string> {
  const text = ctx.file.content ?? [...ctx.file.known.values()].join("\n");
  const out = new Set<string>();
  const re = /(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const spec = m[1]!.replace(/\/$/, "");
    out.add(stemOf(spec));
    if (stemOf(spec) === "index") out.add(spec.split("/").slice(-2, -1)[0]?.toLowerCase() ?? "");
    else out.add(spec.slice(spec.lastIndexOf("/") + 1).toLowerCase()); // `./parse` imports parse.ts or parse/index.ts
  }
  return out;
}

/** Names of the packages a test imports by bare specifier (`@scope/name/...` or `name/...` -> name). */
function importedPackages(ctx: FileContext): Set<string> {
  const text = ctx.file.content ?? [...ctx.file.known.values()].join("\n");
  const out = new Set<string>();
  const re = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)["']((?:@[\w.-]+\/)?[\w.-]+)(?:\/[^"']*)?["']/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.add(m[1]!.replace(/^@[\w.-]+\//, ""));
  return out;
}

/** Added lines that are code a test could exercise (not types, imports, comments or blank). */
function executableAdded(ctx: FileContext): number[] {
  const sf = ctx.kind.isJsLike ? sourceFileOf(ctx) : null;
  const declarative = new Set<number>();
  if (sf) {
    for (const st of sf.statements) {
      if (
        ts.isInterfaceDeclaration(st) ||
        ts.isTypeAliasDeclaration(st) ||
        ts.isImportDeclaration(st) ||
        ts.isExportDeclaration(st) ||
        ts.isModuleDeclaration(st)
      ) {
        const from = sf.getLineAndCharacterOfPosition(st.getStart(sf)).line + 1;
        const to = sf.getLineAndCharacterOfPosition(st.getEnd()).line + 1;
        for (let ln = from; ln <= to; ln++) declarative.add(ln);
      }
    }
  }
  return ctx.addedLines.filter((l) => l.code.trim() !== "" && !/^[\s{}()[\];,]*$/.test(l.code) && !declarative.has(l.line)).map((l) => l.line);
}

/** The package a file belongs to in a monorepo (packages/x/...), or the repository root. */
function packageOf(path: string): string {
  const m = /^((?:packages|apps|libs|modules|plugins)\/[^/]+)\//.exec(path);
  return m ? m[1]! : "";
}

export function testing(contexts: FileContext[], title = ""): ReviewComment[] {
  // A refactor, a performance change or a chore keeps behaviour: existing tests are what covers it.
  if (/^(?:refactor|perf|chore|style|docs|build|ci|revert)\b/i.test(title.trim())) return [];
  const tests = contexts.filter((c) => c.kind.isTest && c.file.status !== "deleted");
  const sourceNames = new Set(contexts.filter(isSource).flatMap((c) => namesOf(c.file.path)));
  const covered = new Set<string>();
  // Tests that go through the package's public entry (zod's feature tests, got's test/*.ts) name no
  // source file; such a test covers its package.
  const coveredPackages = new Set<string>();
  for (const t of tests) {
    const stems = importedStems(t);
    covered.add(stemOf(t.file.path));
    for (const s of stems) covered.add(s);
    if (![stemOf(t.file.path), ...stems].some((s) => sourceNames.has(s))) {
      coveredPackages.add(packageOf(t.file.path));
      // A test package of a monorepo imports the packages it tests by name (@trpc/server -> packages/server).
      for (const name of importedPackages(t)) coveredPackages.add(`packages/${name}`);
    }
  }
  const isFix = /^(?:fix|bugfix|hotfix)\b|^fix\(/i.test(title.trim());
  const threshold = isFix ? MIN_FIX_LINES : MIN_SOURCE_LINES;
  const out: ReviewComment[] = [];
  for (const c of contexts) {
    if (!isSource(c) || c.addedLines.length === 0) continue;
    if (namesOf(c.file.path).some((n) => covered.has(n)) || coveredPackages.has(packageOf(c.file.path))) continue;
    const lines = executableAdded(c);
    if (lines.length < threshold) continue;
    const f = finding(
      RULES.missingTests,
      lines[0]!,
      `${lines.length} executable lines of ${codeSpan(c.file.path)} changed${isFix ? " in a fix" : ""}, and no test of this file was added or updated.`,
      {
        suggestion: isFix
          ? "Add a regression test that fails without this fix."
          : "Add or update tests that cover the new behaviour, or say in the description why none are needed.",
      },
    );
    out.push({ file: c.file.path, ...f });
    if (out.length >= MAX_REPORTED) break;
  }
  return out;
}
