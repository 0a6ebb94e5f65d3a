/** The words for what test-identity.ts judged: the feedback line and the failures it adds. Pure. */
import type { AddedTests, LostTest, TestIdentity } from "./test-identity.js";

export function lostWords(l: Pick<LostTest, "how" | "since" | "notRun" | "partly" | "units">): string {
  if (l.notRun) return `not run since step ${l.since}: \`${l.notRun}\` did not start after an earlier part failed`;
  if (l.partly) return `${l.units ?? 1} more of its assertions skipped than at the reference, at step ${l.since}`;
  const weight = (l.units ?? 1) > 1 ? `; the ${l.units} assertions or subtests it ran count as failing` : "";
  return `${l.how === "missing" ? `went missing at step ${l.since}` : `skipped at step ${l.since}`}${weight}`;
}

/** Why a counts-only step is short of tests, and since when. */
export function missingWords(id: TestIdentity): string {
  const n = id.missing ?? 0;
  const why = id.notRun?.length ? ` (the test command stopped before ${id.notRun.map((p) => `\`${p}\``).join(", ")}: an earlier part failed)` : "";
  const tests = id.missingTests ?? n;
  const units =
    id.missingTests !== undefined
      ? ` (counted as the ${n} failed subtests and tests fewer than then, as a missing test may have taken any of them with it)`
      : "";
  if (id.filesGone?.length) {
    const files = id.filesGone.map((f) => `\`${f}\``).join(", ");
    return `${files}, which failed to load at step ${id.reference ?? 0}, ${id.filesGone.length === 1 ? "is" : "are"} gone since step ${id.missingSince ?? "?"}: ${tests} test${tests === 1 ? "" : "s"} of the ${id.referenceRan ?? "?"} then count as missing, whatever runs in ${id.filesGone.length === 1 ? "its" : "their"} place${why}`;
  }
  return `${tests} fewer test${tests === 1 ? "" : "s"} ran than the ${id.referenceRan ?? "?"} at step ${id.reference ?? 0}, since step ${id.missingSince ?? "?"}${why}${units}`;
}

/** One line for the feedback, or none. */
export function identityNotice(id: TestIdentity | null | undefined): string | undefined {
  if (!id) return undefined;
  const parts: string[] = [];
  if (id.lost.length > 0) {
    const shown = id.lost.slice(0, 8).map((l) => `${l.name} (${lostWords(l)})`);
    const how = id.lost.every((l) => l.partly) ? "skipped in part" : "skipped or missing";
    parts.push(
      `${id.lost.length} test${id.lost.length === 1 ? "" : "s"} that ran at an earlier step ${id.lost.length === 1 ? "is" : "are"} now ${how} and count${id.lost.length === 1 ? "s" : ""} as failing: ${shown.join(", ")}${id.lost.length > 8 ? ", …" : ""}`,
    );
  }
  if (id.extraSkipped > 0)
    parts.push(
      `${id.extraSkipped} more test${id.extraSkipped === 1 ? "" : "s"} skipped than at earlier steps, counted as failing (the output names only the failing tests)`,
    );
  if (id.added) parts.push(addedWords(id.added, id.reference ?? 0));
  if ((id.capped ?? 0) > 0) {
    const ref = id.reference ?? 0;
    parts.push(
      `${id.capped} pass${id.capped === 1 ? "" : "es"} beyond the ${id.referenceRan} tests that ran at step ${ref} ${id.capped === 1 ? "is" : "are"} not counted: the output names only the failing tests, so passing tests added since cannot be told apart and may not raise the score (a verbose or JSON reporter lets code-trm track tests by name)`,
    );
  }
  if ((id.padded ?? 0) > 0)
    parts.push(
      `${id.padded} passing assertion${id.padded === 1 ? "" : "s"} beyond what ${id.padded === 1 ? "its test" : "their tests"} ran at step ${id.reference ?? 0} ${id.padded === 1 ? "is" : "are"} not counted: assertions added to a test may not raise the score`,
    );
  if ((id.missing ?? 0) > 0)
    parts.push(
      `${missingWords(id)}: ${(id.missingTests ?? id.missing) === 1 ? "it counts" : "they count"} as failing (the output names only the failing tests, so the missing ones cannot be named; a verbose or JSON reporter lets code-trm name them)`,
    );
  if ((id.fewer ?? 0) > 0)
    parts.push(
      `${id.fewer} fewer test${id.fewer === 1 ? "" : "s"} ran than at step ${id.fewerThanStep} (the output names only the failing tests, so this is not scored; a verbose or JSON reporter lets code-trm track them)`,
    );
  if (id.dropped?.length) {
    const n = id.dropped.length;
    const shown = id.dropped.slice(0, 8).map((d) => `${d.name} (added at step ${d.added}, ${lostWords(d)})`);
    parts.push(
      `${n} test${n === 1 ? "" : "s"} added after step ${id.reference ?? 0} ${n === 1 ? "is" : "are"} now skipped or missing (not scored: ${n === 1 ? "it was" : "they were"} not in the reference): ${shown.join(", ")}${n > 8 ? ", …" : ""}`,
    );
  }
  return parts.length ? parts.join("; ") : undefined;
}

function addedWords(a: AddedTests, ref: number): string {
  const n = a.passed + a.failed + a.skipped;
  const verb = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
  const how = [
    a.passed > 0 ? verb(a.passed, "passes", "pass") : "",
    a.failed > 0 ? verb(a.failed, "fails", "fail") : "",
    a.skipped > 0 ? `${a.skipped} skipped` : "",
  ]
    .filter((x) => x)
    .join(", ");
  const named = `${a.names.join(", ")}${n > a.names.length ? ", …" : ""}`;
  return `${n} new test${n === 1 ? "" : "s"} since step ${ref}: ${how}; tests that did not run at step ${ref} count toward the score only while they fail (${named})`;
}
