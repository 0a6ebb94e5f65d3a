import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RUNNERS } from "../../../src/evaluate/runners/index.js";
import { runnersTable, TABLE_END, TABLE_START, withRunnersTable } from "../../../src/evaluate/runners/table.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const DOC = path.join(ROOT, "docs/scoring.md");

describe("docs/scoring.md's runner table", () => {
  it("is the one the descriptors generate (npm run docs writes it)", () => {
    const doc = readFileSync(DOC, "utf8");
    expect(withRunnersTable(doc), "docs/scoring.md's runner table differs from the descriptors: run `npm run docs`").toBe(doc);
  });

  it("puts back a row edited by hand, and leaves the text around the markers alone", () => {
    const doc = `# Scoring\n\nbefore\n\n${runnersTable()}\n\nafter\n`;
    const edited = doc.replace(`| ${RUNNERS[0]!.name} |`, `| ${RUNNERS[0]!.name} (edited) |`);
    expect(edited).not.toBe(doc);
    expect(withRunnersTable(edited)).toBe(doc);
  });

  it("has a row per runner, and refuses a document without its markers", () => {
    const table = runnersTable();
    for (const r of RUNNERS) expect(table).toContain(`| ${r.name} |`);
    expect(() => withRunnersTable("# no markers\n")).toThrow(/markers/);
    expect(() => withRunnersTable(`${TABLE_START}\n${TABLE_START}\n${TABLE_END}\n`)).toThrow(/markers/);
  });

  it("lives in docs/scoring.md only: the README links to it instead of keeping a copy", () => {
    expect(readFileSync(path.join(ROOT, "README.md"), "utf8")).not.toContain(TABLE_START);
  });
});
