import path from "node:path";
import type { Diagnostic } from "../evaluate/types.js";

/**
 * Hand-written fixes, used only for errors the real fixers leave alone. The TypeScript language
 * service has no code fix for the extension errors of NodeNext ESM imports, which are among the
 * most common errors a model makes in such a project, and their fix is mechanical.
 * Pure: the caller supplies the file text and a way to ask whether a file exists.
 */

export interface RuleFix {
  after: string;
  description: string;
}

/** The quoted module specifier that starts at a 1-based line and column, with its offsets in `text`. */
function specifierAt(text: string, line: number, column: number): { start: number; end: number; spec: string } | null {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", offset);
    if (nl === -1) return null;
    offset = nl + 1;
  }
  const start = offset + column - 1;
  const quote = text[start];
  if (quote !== '"' && quote !== "'" && quote !== "`") return null;
  const end = text.indexOf(quote, start + 1);
  const nl = text.indexOf("\n", start);
  if (end === -1 || (nl !== -1 && nl < end)) return null;
  return { start: start + 1, end, spec: text.slice(start + 1, end) };
}

const TS_TO_JS: Array<[string, string]> = [
  [".ts", ".js"],
  [".tsx", ".js"],
  [".mts", ".mjs"],
  [".cts", ".cjs"],
];

/** The specifier with the extension Node will find at run time, for a relative import written without one. */
function withExtension(spec: string, fromFile: string, exists: (rel: string) => boolean): string | null {
  const base = path.posix.join(path.posix.dirname(fromFile), spec);
  for (const [src, out] of TS_TO_JS) if (exists(`${base}${src}`)) return `${spec}${out}`;
  for (const ext of [".js", ".mjs", ".cjs", ".json"]) if (exists(`${base}${ext}`)) return `${spec}${ext}`;
  for (const [src, out] of TS_TO_JS) if (exists(`${base}/index${src}`)) return `${spec.replace(/\/$/, "")}/index${out}`;
  return null;
}

const DID_YOU_MEAN = /Did you mean '([^']+)'\?/;

/** A hand-written fix for a tsc diagnostic, or null when no rule applies. */
export function ruleFix(d: Diagnostic, text: string, exists: (rel: string) => boolean): RuleFix | null {
  if (d.source !== "tsc" || !d.file || !d.line || !d.column) return null;
  const at = specifierAt(text, d.line, d.column);
  if (!at?.spec.startsWith(".")) return null;
  let next: string | null = null;
  switch (d.code) {
    case "TS2835": // "... Did you mean './m.js'?"
      next = DID_YOU_MEAN.exec(d.message)?.[1] ?? withExtension(at.spec, d.file, exists);
      break;
    case "TS2834": // "... Consider adding an extension to the import path."
      next = withExtension(at.spec, d.file, exists);
      break;
    case "TS5097": {
      // "An import path can only end with a '.ts' extension when 'allowImportingTsExtensions' is enabled."
      const pair = TS_TO_JS.find(([src]) => at.spec.endsWith(src));
      next = pair ? at.spec.slice(0, -pair[0].length) + pair[1] : null;
      break;
    }
  }
  if (!next || next === at.spec) return null;
  return {
    after: text.slice(0, at.start) + next + text.slice(at.end),
    description: `import "${next}" instead of "${at.spec}": under NodeNext, relative ESM imports name the emitted file, extension included`,
  };
}
