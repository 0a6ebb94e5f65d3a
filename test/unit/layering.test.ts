import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/repo.js";

/**
 * The layering docs/architecture.md promises (cli → mcp → suggest → review → session → evaluate → candidate / git →
 * exec → util): a module imports only from its own layer or one below, and value imports form no cycle (a
 * type-only import is erased, so `session.ts ⇄ submit.ts` through `import type` is allowed).
 */
const ORDER = ["util", "exec", "candidate|git", "evaluate", "session", "review", "suggest", "mcp", "cli"];
const SRC = path.join(ROOT, "src");

interface Edge {
  to: string;
  typeOnly: boolean;
}

function importsOf(file: string): Edge[] {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    if (spec.startsWith(".")) edges.push({ to: path.resolve(path.dirname(file), spec).replace(/\.js$/, ".ts"), typeOnly });
  };
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const c = n.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
      const typeOnly = !!c && (c.isTypeOnly || (!c.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      add(n.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      add(n.moduleSpecifier.text, n.isTypeOnly);
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) {
      add(n.arguments[0].text, false);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      add(n.argument.literal.text, true);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return edges;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

const rel = (f: string) => path.relative(SRC, f);
const rank = (f: string) => ORDER.findIndex((l) => l.split("|").includes(rel(f).split(path.sep)[0]!));

describe("module layering of src/", () => {
  const graph = new Map(sourceFiles(SRC).map((f) => [f, importsOf(f)]));

  it("knows every top folder and every import resolves to a file of src/", () => {
    for (const [file, edges] of graph) {
      expect(rank(file), `${rel(file)}: a top folder missing from ORDER`).toBeGreaterThanOrEqual(0);
      for (const e of edges) expect(graph.has(e.to), `${rel(file)} imports ${rel(e.to)}, not a source file`).toBe(true);
    }
  });

  it("has no import that runs upward", () => {
    const upward = [...graph].flatMap(([file, edges]) => edges.filter((e) => rank(e.to) > rank(file)).map((e) => `${rel(file)} -> ${rel(e.to)}`));
    expect(upward).toEqual([]);
  });

  it("has no cycle of value imports", () => {
    const state = new Map<string, "open" | "done">();
    const cycles: string[] = [];
    const visit = (f: string, stack: string[]) => {
      state.set(f, "open");
      stack.push(f);
      for (const e of graph.get(f) ?? []) {
        if (e.typeOnly) continue;
        if (state.get(e.to) === "open") cycles.push([...stack.slice(stack.indexOf(e.to)), e.to].map(rel).join(" -> "));
        else if (!state.has(e.to)) visit(e.to, stack);
      }
      stack.pop();
      state.set(f, "done");
    };
    for (const f of graph.keys()) if (!state.has(f)) visit(f, []);
    expect(cycles).toEqual([]);
  });

  it("runs the git CLI from one entry point (src/git/cli.ts)", () => {
    // The demo plays the user making their own repository (with their identity), so it uses plain git.
    const allowed = new Set(["git/cli.ts", "cli/demo.ts"]);
    const spawnsGit = /\b(?:execa|execaSync|spawn|spawnSync|execFile|execFileSync)\(\s*["'`]git["'`]/;
    const others = [...graph.keys()].filter((f) => !allowed.has(rel(f)) && spawnsGit.test(readFileSync(f, "utf8"))).map(rel);
    expect(others).toEqual([]);
  });
});
