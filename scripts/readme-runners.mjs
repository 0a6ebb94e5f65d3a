// Writes the table of test runners in docs/scoring.md from the descriptors in src/evaluate/runners (after a build).
// test/unit/evaluate/readme-runners.test.ts fails while docs/scoring.md differs from what this writes.
import { readFileSync, writeFileSync } from "node:fs";
import { withRunnersTable } from "../dist/evaluate/runners/table.js";

const file = new URL("../docs/scoring.md", import.meta.url);
const before = readFileSync(file, "utf8");
const after = withRunnersTable(before);
if (after !== before) writeFileSync(file, after);
console.log(after !== before ? "docs/scoring.md: runners table updated" : "docs/scoring.md: runners table up to date");
