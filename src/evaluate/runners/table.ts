/** The README's table of test runners, generated from the descriptors (scripts/readme-runners.mjs writes it; a test keeps it in step). */
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

/** The README with its runner table replaced by the generated one (the markers must be there, once). */
export function withRunnersTable(readme: string): string {
  const a = readme.indexOf(TABLE_START);
  const b = readme.indexOf(TABLE_END);
  if (a < 0 || b < a || readme.indexOf(TABLE_START, a + 1) >= 0) throw new Error("README.md: the runners table markers are missing or repeated");
  return readme.slice(0, a) + runnersTable() + readme.slice(b + TABLE_END.length);
}
