import { type ChangedLines, linesOf } from "./changed-lines.js";
import type { LineHits } from "./line-hits.js";

/** Added lines of one hunk that no test ran. */
export interface UncoveredHunk {
  file: string;
  /** The hunk's first and last unrun executable line. */
  start: number;
  end: number;
  lines: number[];
  /** False when no test process loaded the file at all. */
  loaded: boolean;
}

export interface ChangeCoverage {
  uncovered: UncoveredHunk[];
  /** Added executable lines that ran, per file: where mutants go. */
  covered: Map<string, number[]>;
  /** Added executable lines, ran or not, and how many ran. */
  added: number;
  ran: number;
}

/**
 * Crosses the added lines with what ran: one finding per hunk that has an added executable line no test
 * ran. A line the coverage does not know (not a statement there) is neither; a file no process loaded
 * has all its executable added lines unrun. `executable` null for a file: every added line counts. Pure.
 */
export function crossCoverage(changed: ChangedLines, hits: LineHits, executable: Map<string, Set<number> | null>): ChangeCoverage {
  const uncovered: UncoveredHunk[] = [];
  const covered = new Map<string, number[]>();
  let added = 0;
  let ran = 0;
  for (const [file, hunks] of changed) {
    const fileHits = hits.get(file);
    const exec = executable.get(file);
    for (const h of hunks) {
      const lines = linesOf(h).filter((l) => (exec ? exec.has(l) : true));
      const unrun: number[] = [];
      for (const l of lines) {
        const n = fileHits ? fileHits.get(l) : 0;
        if (n === undefined) continue;
        added++;
        if (n > 0) {
          ran++;
          covered.set(file, [...(covered.get(file) ?? []), l]);
        } else unrun.push(l);
      }
      if (unrun.length > 0) uncovered.push({ file, start: unrun[0]!, end: unrun[unrun.length - 1]!, lines: unrun, loaded: fileHits !== undefined });
    }
  }
  return { uncovered, covered, added, ran };
}
