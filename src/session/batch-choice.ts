/**
 * Which candidate of a batch is recorded as the step (docs/failing-first.md, "Best of N"). A partial
 * run's score (failing first) is an estimate: the tests that did not run count as they were at the last
 * full run, so it can only overstate the candidate. Two partial runs of one batch share that last full
 * run and differ only in the selected tests: their estimates compare fairly. A full run's score is exact,
 * so a partial estimate may not beat it on trust: that candidate's whole suite runs first, and the choice
 * is made again on exact scores.
 */

export interface Contender {
  score: number;
  partial: boolean;
}

/**
 * The best by score; on a tie a full run before a partial one (the estimate is at most the real score),
 * then the earlier. When the best is partial and any full run was evaluated, `runInFull` names it.
 */
export function chooseWinner(cs: Contender[]): { winner: number } | { runInFull: number } {
  if (cs.length === 0) throw new Error("chooseWinner: no candidate");
  let best = 0;
  for (let i = 1; i < cs.length; i++) {
    const a = cs[best]!;
    const b = cs[i]!;
    if (b.score > a.score || (b.score === a.score && a.partial && !b.partial)) best = i;
  }
  return cs[best]!.partial && cs.some((c) => !c.partial) ? { runInFull: best } : { winner: best };
}
