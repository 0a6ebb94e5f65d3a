import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../../src/evaluate/types.js";
import { ruleFix } from "../../../src/suggest/rules.js";

const tsc = (code: string, line: number, column: number, message: string): Diagnostic => ({
  file: "src/i.ts",
  line,
  column,
  code,
  message,
  severity: "error",
  source: "tsc",
});
const files = new Set(["src/m.ts", "src/lib/index.ts", "src/data.json"]);
const exists = (rel: string) => files.has(rel);

describe("hand-written fallback rules", () => {
  it("TS2835: uses the compiler's own 'Did you mean'", () => {
    const text = 'import { a } from "./m";\nexport const b = a;\n';
    const r = ruleFix(
      tsc(
        "TS2835",
        1,
        19,
        "Relative import paths need explicit file extensions in ECMAScript imports when '--moduleResolution' is 'node16' or 'nodenext'. Did you mean './m.js'?",
      ),
      text,
      exists,
    );
    expect(r?.after).toBe('import { a } from "./m.js";\nexport const b = a;\n');
  });
  it("TS2834: finds the file to name (a module or a directory index)", () => {
    const text = "import { a } from './m';\nimport { l } from './lib';\n";
    const msg =
      "Relative import paths need explicit file extensions in ECMAScript imports when '--moduleResolution' is 'node16' or 'nodenext'. Consider adding an extension to the import path.";
    expect(ruleFix(tsc("TS2834", 1, 19, msg), text, exists)?.after).toBe("import { a } from './m.js';\nimport { l } from './lib';\n");
    expect(ruleFix(tsc("TS2834", 2, 19, msg), text, exists)?.after).toBe("import { a } from './m';\nimport { l } from './lib/index.js';\n");
    expect(ruleFix(tsc("TS2834", 1, 19, msg), text, () => false)).toBeNull();
  });
  it("TS5097: a .ts extension becomes the emitted .js", () => {
    const text = 'export { a } from "./m.ts";\n';
    expect(
      ruleFix(tsc("TS5097", 1, 19, "An import path can only end with a '.ts' extension when 'allowImportingTsExtensions' is enabled."), text, exists)?.after,
    ).toBe('export { a } from "./m.js";\n');
  });
  it("does nothing when the location is not a relative specifier, or for other codes and tools", () => {
    const text = 'import { a } from "pkg";\n';
    expect(ruleFix(tsc("TS2835", 1, 19, "Did you mean './x.js'?"), text, exists)).toBeNull();
    expect(ruleFix(tsc("TS2835", 1, 3, "Did you mean './x.js'?"), text, exists)).toBeNull();
    expect(ruleFix(tsc("TS2304", 1, 19, "Cannot find name"), 'import "./m";\n', exists)).toBeNull();
    expect(ruleFix({ ...tsc("TS2835", 1, 8, "Did you mean './m.js'?"), source: "eslint" }, 'import "./m";\n', exists)).toBeNull();
  });
});
