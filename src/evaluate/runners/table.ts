/** The table of test runners in docs/scoring.md, generated from the descriptors (scripts/readme-runners.mjs writes it; a test keeps it in step). */
import { formatsOf, GENERIC_TEST_CONFIG, RUNNERS } from "./index.js";

export const TABLE_START = "<!-- runners:start (generated from src/evaluate/runners by `npm run docs`; do not edit) -->";
export const TABLE_END = "<!-- runners:end -->";

const code = (s: string) => `\`${s.replace(/\|/g, "\\|")}\``;
const cell = (s: string) => s.replace(/\|/g, "\\|");

export function runnersTable(): string {
  const rows = RUNNERS.map((r) => {
    return `| ${cell(r.name)} | ${code(r.command)} | ${cell(formatsOf(r))} | ${cell(r.namesTests ?? "none (counts only)")} | ${r.testConfigFiles.map(code).join(", ") || "none of its own"} |`;
  });
  return [
    TABLE_START,
    "| Runner | A command whose output is read | Output read | Tests named by | Files that choose its tests |",
    "|---|---|---|---|---|",
    ...rows,
    "",
    `Files that choose tests whatever the runner: ${GENERIC_TEST_CONFIG.map(code).join(", ")}.`,
    TABLE_END,
  ].join("\n");
}

/** A document (docs/scoring.md) with its runner table replaced by the generated one (the markers must be there, once). */
export function withRunnersTable(doc: string): string {
  const a = doc.indexOf(TABLE_START);
  const b = doc.indexOf(TABLE_END);
  if (a < 0 || b < a || doc.indexOf(TABLE_START, a + 1) >= 0) throw new Error("docs/scoring.md: the runners table markers are missing or repeated");
  return doc.slice(0, a) + runnersTable() + doc.slice(b + TABLE_END.length);
}
