import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RUNNERS } from "../../../src/evaluate/runners/index.js";
import { runnersTable, TABLE_END, TABLE_START, withRunnersTable } from "../../../src/evaluate/runners/table.js";

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../README.md");

describe("README's runner table", () => {
  it("is the one the descriptors generate (npm run docs writes it)", () => {
    const readme = readFileSync(README, "utf8");
    expect(withRunnersTable(readme), "README.md's runner table differs from the descriptors: run `npm run docs`").toBe(readme);
  });

  it("has a row per runner, and refuses a README without its markers", () => {
    const table = runnersTable();
    for (const r of RUNNERS) expect(table).toContain(`| ${r.name} |`);
    expect(() => withRunnersTable("# no markers\n")).toThrow(/markers/);
    expect(() => withRunnersTable(`${TABLE_START}\n${TABLE_START}\n${TABLE_END}\n`)).toThrow(/markers/);
  });
});
