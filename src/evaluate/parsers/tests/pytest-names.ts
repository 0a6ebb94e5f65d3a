/**
 * pytest's names for its tests, read from its terminal output (parsers/tests/pytest.ts reads the counts and
 * the failures): the `-v` outcome lines, or the short summary of `-rA`. They are used only where they account
 * for the summary's counts; otherwise the suite is tracked by counts.
 */
import type { TestCase } from "../../types.js";
import { MAX_CASES } from "./common.js";

// `tests/x.py::test_a[1-2] PASSED   [ 18%]` (-v); subtests print SUBPASSED / SUBFAILED lines of their own.
/** A node id: a path with an extension (`.py`, or a doctest's text file; spaces allowed), `::` and a name. */
export const NODE_ID = /^[^\s:][^:]*\.\w+::\S/;

const VERBOSE_WORDS = ["PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS"] as const;

/** A `-v` outcome line's node id and word, found with indexOf (a crafted line must not cost quadratic time). */
function verboseOutcome(line: string): { id: string; word: (typeof VERBOSE_WORDS)[number] } | undefined {
  const sep = line.indexOf("::");
  const space = line.indexOf(" ");
  if (sep < 3 || space < sep || !/\.\w+$/.test(line.slice(0, sep))) return undefined;
  let best: { at: number; word: (typeof VERBOSE_WORDS)[number] } | undefined;
  for (const word of VERBOSE_WORDS) {
    const at = line.indexOf(` ${word}`, sep);
    if (at < 0 || (best && at >= best.at)) continue;
    // The word ends the line or is followed by its reason `(...)` or the progress `[ 18%]`.
    const next = line.charAt(at + word.length + 1);
    if (next === "" || next === " ") best = { at, word };
  }
  return best ? { id: line.slice(0, best.at), word: best.word } : undefined;
}

/**
 * A short summary line's node id, before ` - message`: the first ` - ` outside the brackets of its parameters
 * (`test_ev[3 - 1-2] - assert 4 == 2`), or the first at all where the brackets do not close.
 */
export function idBeforeMessage(rest: string): string {
  let depth = 0;
  for (let i = Math.max(rest.indexOf("::"), 0); i < rest.length; i++) {
    const c = rest.charAt(i);
    if (c === "[") depth++;
    else if (c === "]") depth = Math.max(0, depth - 1);
    else if (depth === 0 && c === " " && rest.startsWith(" - ", i)) return rest.slice(0, i).trim();
  }
  const dash = rest.indexOf(" - ");
  return (dash >= 0 ? rest.slice(0, dash) : rest).trim();
}

/** The status of an outcome word (`-v` or `-rA`); a test that failed anywhere (its teardown) stays failed (setStatus). */
const statusOf = (word: string): TestCase["status"] =>
  word === "PASSED" || word === "XPASS" ? "passed" : word === "SKIPPED" || word === "XFAIL" ? "skipped" : "failed";

function setStatus(status: Map<string, TestCase["status"]>, id: string, st: TestCase["status"]): void {
  if (status.get(id) !== "failed") status.set(id, st);
}

/** `-v` names every test by its node id, the name its failures carry in the short summary. Undefined past MAX_CASES. */
export function verboseStatuses(lines: string[], end: number): Map<string, TestCase["status"]> | undefined {
  const status = new Map<string, TestCase["status"]>();
  for (let i = 0; i < end; i++) {
    const line = lines[i]!;
    if (!line.includes("::")) continue;
    const m = verboseOutcome(line);
    if (!m) continue;
    setStatus(status, m.id, statusOf(m.word));
    // Past MAX_CASES the suite is tracked by counts (common.ts): stop gathering names.
    if (status.size > MAX_CASES) return undefined;
  }
  return status;
}

/**
 * `-rA` (code-trm's default pytest command) names every test in the short summary, after pytest's last
 * `short test summary info` rule, where the tests' own output cannot be: `PASSED id`, `XPASS id - reason`,
 * `XFAIL id - reason`, `FAILED id - message`, `ERROR id - message`. Skipped tests are only grouped by place
 * (`SKIPPED [2] tests/x.py:12: reason`): each stands for a test named by that place, which tracks it as well
 * as a test only ever skipped needs (it counts for nothing), while a test that ran and is now skipped is
 * still missing by its own name. Without names a candidate could swap a failing test for a passing one.
 */
export function shortSummaryStatuses(lines: string[], end: number): Map<string, TestCase["status"]> | undefined {
  let at = -1;
  for (let i = end - 1; i >= 0; i--) {
    if (lines[i]!.startsWith("=") && /^=+ short test summary info =+$/.test(lines[i]!)) {
      at = i;
      break;
    }
  }
  if (at < 0) return undefined;
  const status = new Map<string, TestCase["status"]>();
  const places = new Map<string, number>();
  for (let i = at + 1; i < end; i++) {
    const line = lines[i]!;
    const space = line.indexOf(" ");
    const word = line.slice(0, space);
    const rest = line.slice(space + 1);
    if (word === "SKIPPED") {
      // The place may hold spaces (`my tests/x.py:4`); groups of one place (two reasons) are numbered on.
      const m = /^\[(\d+)\] (.+?:\d+)(?::|$)/.exec(rest);
      const n = m ? Number(m[1]) : 0;
      // Bounded before it is counted out: the number comes from the output.
      if (n > MAX_CASES - status.size) return undefined;
      for (let k = 1; k <= n; k++) {
        const at = (places.get(m![2]!) ?? 0) + 1;
        places.set(m![2]!, at);
        setStatus(status, `skipped at ${m![2]} #${at}`, "skipped");
      }
    } else if (word === "PASSED") setStatus(status, rest, "passed");
    else if (word === "XPASS" || word === "XFAIL" || word === "FAILED" || word === "ERROR") {
      // The id as readShortSummary cuts it, so that a failed test's name is its failure's.
      const id = idBeforeMessage(rest);
      if (NODE_ID.test(id)) setStatus(status, id, statusOf(word));
    }
    if (status.size > MAX_CASES) return undefined;
  }
  return status;
}

/**
 * The named tests, used only when they account for every passed and skipped test of the summary (output
 * printed by the tests, `-s`, or xdist's `[gw0]` prefixes would otherwise make tests look missing; a test
 * that passed and then errored in teardown is in both tallies, so such a run is tracked by counts).
 */
export function reconciled(
  status: Map<string, TestCase["status"]> | undefined,
  passed: number,
  skipped: number,
  failed: number,
  subfailedTests: string[],
): TestCase[] | undefined {
  if (!status || status.size === 0) return undefined;
  // Each failed subtest is a failed unit of its test (pytest counts it in "failed"; a unittest test whose
  // subtests failed is itself PASSED).
  const subs = new Map<string, number>();
  for (const node of subfailedTests) subs.set(node, (subs.get(node) ?? 0) + 1);
  const cases: TestCase[] = [...status].map(([name, st]) => {
    const k = subs.get(name);
    return k === undefined
      ? { name, status: st }
      : { name, status: st, units: { passed: st === "passed" ? 1 : 0, failed: k + (st === "failed" ? 1 : 0), skipped: 0 } };
  });
  const n = (st: TestCase["status"]) => cases.filter((c) => c.status === st).length;
  const failedUnits = cases.reduce((sum, c) => sum + (c.units?.failed ?? (c.status === "failed" ? 1 : 0)), 0);
  return n("passed") === passed && n("skipped") === skipped && failedUnits <= failed ? cases : undefined;
}
