/**
 * Output that names only failing tests and counts no passes (`go test` without -v: `ok  pkg`) cannot
 * tell a fixed test from a deleted or skipped one: both just stop being reported. A test that failed at
 * an earlier step and is no longer reported is taken as fixed while its test file is untouched; once a
 * step since its last report changed that file (or, when its file is unknown, any test file), it is
 * "unconfirmed" and counts as failing until the output shows it again. Pure.
 */
import type { TestCounts } from "./types.js";

export interface UnconfirmedTest {
  name: string;
  /** The last step whose output reported it. */
  reported: number;
  /** The first step after that which changed its test file. */
  since: number;
  /** The test file that changed (absent: its file is unknown, and some test file changed). */
  file?: string;
}

/** What an earlier evaluated step showed of its tests, and which test files it changed. */
export interface ReportPoint {
  step: number;
  tests: TestCounts | null | undefined;
  testFiles?: string[];
}

const MAX_UNCONFIRMED = 50;

/** Whether a failure is a real report of a test (not a judgement's mark or a failure outside any test). */
const reported = (name: string, message: string | undefined, mark: string) => !name.startsWith("(") && !message?.startsWith(mark);

export function unconfirmedTests(current: TestCounts, step: number, changedNow: string[], earlier: ReportPoint[], mark: string): UnconfirmedTest[] {
  // Only where passes are neither named nor counted: elsewhere names or counts show what ran.
  if (current.cases || current.passed !== null) return [];
  const last = new Map<string, { step: number; file?: string }>();
  for (const e of earlier) {
    for (const f of e.tests?.failures ?? []) if (reported(f.name, f.message, mark)) last.set(f.name, { step: e.step, ...(f.file ? { file: f.file } : {}) });
    for (const c of e.tests?.cases ?? [])
      if (c.status !== "skipped") last.set(c.name, { step: e.step, ...(last.get(c.name)?.file ? { file: last.get(c.name)!.file } : {}) });
  }
  const now = new Set(current.failures.map((f) => f.name));
  const changes = [...earlier.map((e) => ({ step: e.step, files: e.testFiles ?? [] })), { step, files: changedNow }];
  const out: UnconfirmedTest[] = [];
  for (const [name, at] of last) {
    if (now.has(name)) continue;
    const touched = changes.find((c) => c.step > at.step && (at.file ? c.files.includes(at.file) : c.files.length > 0));
    if (!touched) continue;
    out.push({ name, reported: at.step, since: touched.step, ...(at.file ? { file: at.file } : {}) });
    if (out.length >= MAX_UNCONFIRMED) break;
  }
  return out;
}

export function unconfirmedNotice(list: UnconfirmedTest[], note: string | undefined): string {
  const n = list.length;
  const shown = list.slice(0, 6).map((u) => `${u.name} (reported at step ${u.reported}; ${u.file ?? "a test file"} changed at step ${u.since})`);
  return (
    `${n} test${n === 1 ? "" : "s"} that failed at an earlier step ${n === 1 ? "is" : "are"} no longer reported, and a step since changed ${n === 1 ? "its" : "their"} test file: ${shown.join(", ")}${n > 6 ? ", …" : ""}. ` +
    `The output names only failing tests${note ? ` (${note.replace(/\.$/, "")})` : ""}, so a fixed test cannot be told from a deleted or skipped one: ${n === 1 ? "it counts" : "they count"} as failing until the output shows ${n === 1 ? "it" : "them"} passing. A verbose or JSON reporter (go test -v or -json) lets code-trm track tests by name.`
  );
}
