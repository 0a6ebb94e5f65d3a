import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/repo.js";

/** The house rule (docs/architecture.md): no source file past 400 lines; a longer one is split into modules named after what they do. */
const MAX_LINES = 400;
const SRC = path.join(ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

describe("source file length", () => {
  it(`has no file of src/ past ${MAX_LINES} lines`, () => {
    const long = sourceFiles(SRC)
      .map((f) => ({ file: path.relative(ROOT, f), lines: readFileSync(f, "utf8").split("\n").length - 1 }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.file}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });
});
