/**
 * The lines of a JavaScript/TypeScript file that become code: those the TypeScript compiler's output maps
 * back to. Type-only lines (interfaces, type aliases, overloads, `declare`), comments and blank lines have
 * no mapping. Coverage reports a changed line as unrun only when it is one of these, and a file no
 * process loaded has only these to report.
 */

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** The generated→original line pairs of a v3 source map's `mappings` (0-based original lines). Pure. */
export function mappedOriginalLines(mappings: string): Set<number> {
  const lines = new Set<number>();
  let origLine = 0;
  for (const group of mappings.split(";")) {
    for (const seg of group.split(",")) {
      if (seg === "") continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of seg) {
        const digit = B64.indexOf(ch);
        if (digit < 0) return lines;
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      // [genColumn, sourceIndex, origLine, origColumn, name?]: the line is a delta across segments.
      if (fields.length >= 4) {
        origLine += fields[2]!;
        lines.add(origLine);
      }
    }
  }
  return lines;
}

/** 1-based executable lines of `text` (file name gives the dialect), or null when it cannot be compiled. */
export async function executableLines(file: string, text: string): Promise<Set<number> | null> {
  const ts = (await import("typescript")).default;
  try {
    const out = ts.transpileModule(text, {
      fileName: file.replace(/\.([cm]?)js(x?)$/, ".$1ts$2"),
      reportDiagnostics: false,
      compilerOptions: {
        sourceMap: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        jsx: ts.JsxEmit.Preserve,
        removeComments: true,
        importHelpers: true,
      },
    });
    if (!out.sourceMapText) return null;
    const map = JSON.parse(out.sourceMapText) as { mappings: string };
    return new Set([...mappedOriginalLines(map.mappings)].map((l) => l + 1));
  } catch {
    return null;
  }
}
