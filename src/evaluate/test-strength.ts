/**
 * How well the tests check a change, measured by running them: which added lines no test runs
 * (coverage/), and which of the covered ones a test would not notice changing (mutate/). Shared by the
 * review (trm_review_pr with mutate) and the loop (testStrength at start).
 */

import { runCommand } from "../exec/run.js";
import type { Sandbox } from "../exec/sandbox.js";
import { readPrefix } from "../util/read-prefix.js";
import { codeSpan } from "../util/text.js";
import { type ChangedLines, languageOf } from "./coverage/changed-lines.js";
import { type CoverageRun, measureChangeCoverage } from "./coverage/run-coverage.js";
import { MAX_SOURCE, type MutationRun, plainFile, runMutants, type TestsRan } from "./mutate/run-mutants.js";

export interface TestStrengthOptions {
  /** Checkout `k` of the change (k < parallel), made or cleaned by the caller; never the user's. */
  checkout: (k: number) => Promise<string>;
  parallel: number;
  testCmd: string;
  buildCmd?: string;
  changed: ChangedLines;
  /** Cap of one command. */
  timeoutSec: number;
  /** Wall time for the mutants (0: coverage only). */
  budgetMs: number;
  sandbox?: (cwd: string) => Sandbox | undefined;
  env?: Record<string, string>;
  passEnv?: string[];
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

export interface TestStrength {
  coverage: CoverageRun | null;
  mutation: MutationRun | null;
  notes: string[];
}

/** One thing to tell about the change's tests, on a line of it. */
export interface StrengthFinding {
  file: string;
  line: number;
  kind: "untested" | "mutant";
  message: string;
  /** For a mutant: its diff. */
  diff?: string;
}

export const DEFAULT_MUTATION_BUDGET_SEC = 180;

export async function measureTestStrength(o: TestStrengthOptions): Promise<TestStrength> {
  const notes: string[] = [];
  if (o.changed.size === 0)
    return {
      coverage: null,
      mutation: null,
      notes: ["No JavaScript, TypeScript, Python or Go code lines were added (tests and declarations aside): nothing to measure."],
    };
  const first = await o.checkout(0);
  // The changed files as checked out, before the head's build or tests run (they may rewrite them): what
  // the findings quote comes from here. A file that is a link out of the checkout is not read at all.
  const sources = new Map<string, string>();
  for (const file of o.changed.keys()) {
    const abs = plainFile(first, file);
    if (abs) sources.set(file, readPrefix(abs, MAX_SOURCE));
  }
  const changed: ChangedLines = new Map([...o.changed].filter(([f]) => sources.has(f)));
  if (changed.size < o.changed.size)
    notes.push(`${o.changed.size - changed.size} changed file(s) are not plain files of the head (symbolic links or outside it): not measured.`);
  if (changed.size === 0) return { coverage: null, mutation: null, notes };
  const sb = o.sandbox?.(first);
  const common = { ...(o.signal ? { signal: o.signal } : {}), ...(o.env ? { env: o.env } : {}), ...(o.passEnv ? { passEnv: o.passEnv } : {}) };
  if (o.buildCmd) {
    o.onProgress?.(`building the head: ${o.buildCmd}`);
    const b = await runCommand(o.buildCmd, { cwd: first, timeoutMs: o.timeoutSec * 1000, ...common, ...(sb ? { sandbox: sb } : {}) });
    if (b.exitCode !== 0 || b.timedOut)
      return {
        coverage: null,
        mutation: null,
        notes: [`The build failed on the head (${b.timedOut ? "timed out" : `exit ${b.exitCode}`}): the tests' coverage and mutants were not measured.`],
      };
  }
  const coverage = await measureChangeCoverage({
    cwd: first,
    testCmd: o.testCmd,
    changed,
    sources,
    timeoutSec: o.timeoutSec,
    ...common,
    ...(sb ? { sandbox: sb } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  });
  notes.push(...coverage.notes);
  if (coverage.measured) notes.push(`Coverage of the change: ${coverage.ran} of ${coverage.added} added code lines ran under "${coverage.cmd}".`);
  let mutation: MutationRun | null = null;
  // Mutants are Stryker's of JavaScript and TypeScript, and Python's own ast's of Python: Go gets coverage only.
  const mutable = new Map([...coverage.covered].filter(([f]) => languageOf(f) !== "go"));
  if (mutable.size < coverage.covered.size) notes.push("Go files get coverage only: mutants are made of JavaScript, TypeScript and Python lines.");
  if (o.budgetMs > 0 && coverage.measured && mutable.size > 0) {
    mutation = await runMutants({ ...o, covered: mutable, sources });
    notes.push(...mutation.notes);
    if (mutation.chosen > 0) {
      const killed = mutation.results.filter((r) => r.status !== "survived").length;
      notes.push(
        `Mutants of the covered added lines: ${mutation.results.length} of ${mutation.chosen} run in ${Math.round(mutation.durationMs / 1000)} s, ${killed} killed, ${mutation.survived.length} survived.`,
      );
    }
  }
  return { coverage, mutation, notes };
}

/** ": 46 tests passed, among them `a`, `b`, `c`" (the names where the run's output gave them: code spans, as a GitHub comment shows them). */
export function ranText(t: TestsRan | undefined): string {
  if (!t || t.passed === null) return "";
  const names = t.names?.length ? `, among them ${t.names.map(codeSpan).join(", ")}` : "";
  return `: ${t.passed} test${t.passed === 1 ? "" : "s"} passed${names}`;
}

const span = (a: number, b: number) => (a === b ? `line ${a}` : `lines ${a}-${b}`);

/** The findings to show, one per uncovered hunk and one per surviving mutant. Pure. */
export function strengthFindings(s: TestStrength): StrengthFinding[] {
  const out: StrengthFinding[] = [];
  for (const u of s.coverage?.uncovered ?? []) {
    out.push({
      file: u.file,
      line: u.start,
      kind: "untested",
      message: u.loaded
        ? `No test runs ${span(u.start, u.end)} of this change (${u.lines.length} added code line${u.lines.length > 1 ? "s" : ""}).`
        : `No test loads ${codeSpan(u.file)}: ${span(u.start, u.end)} of this change never run under the tests.`,
    });
  }
  for (const m of s.mutation?.survived ?? []) {
    out.push({
      file: m.file,
      line: m.line,
      kind: "mutant",
      message: `Surviving mutant (${m.mutator}): with this change to line ${m.line} every test still passes (${codeSpan(m.cmd)}${ranText(m.tests)}), so no test checks what it does.`,
      diff: m.diff,
    });
  }
  return out;
}
