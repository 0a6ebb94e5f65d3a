// Writes the README's table of test runners from the descriptors in src/evaluate/runners (after a build).
// test/unit/evaluate/readme-runners.test.ts fails while README.md differs from what this writes.
import { readFileSync, writeFileSync } from "node:fs";
import { withRunnersTable } from "../dist/evaluate/runners/table.js";

const file = new URL("../README.md", import.meta.url);
const before = readFileSync(file, "utf8");
const after = withRunnersTable(before);
if (after !== before) writeFileSync(file, after);
console.log(after !== before ? "README.md: runners table updated" : "README.md: runners table up to date");
