// Node module hooks that let a plain `node` child of a unit test import src/ as the tests do: a `.js`
// specifier with no file resolves to the `.ts` beside it, which loads transpiled by the project's own
// typescript (types erased, no type check). Registered through TS_IMPORT (test/helpers/ts-import.ts).
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export async function resolve(specifier, context, next) {
  if (/^\.{1,2}\/|^file:|^\//.test(specifier) && specifier.endsWith(".js") && context.parentURL) {
    const url = new URL(specifier, context.parentURL);
    const asTs = new URL(url.href.replace(/\.js$/, ".ts"));
    if (url.protocol === "file:" && !existsSync(fileURLToPath(url)) && existsSync(fileURLToPath(asTs))) return { url: asTs.href, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.startsWith("file:") || !url.endsWith(".ts")) return next(url, context);
  const text = readFileSync(fileURLToPath(url), "utf8");
  const out = ts.transpileModule(text, {
    fileName: fileURLToPath(url),
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  });
  return { format: "module", source: out.outputText, shortCircuit: true };
}
