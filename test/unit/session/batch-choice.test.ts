import { describe, expect, it } from "vitest";
import { chooseWinner } from "../../../src/session/batch-choice.js";

const full = (score: number) => ({ score, partial: false });
const partial = (score: number) => ({ score, partial: true });

describe("chooseWinner (best of N: which candidate becomes the step)", () => {
  it("takes the best score, the earlier on a tie, among full runs", () => {
    expect(chooseWinner([full(0.5), full(0.8), full(0.8)])).toEqual({ winner: 1 });
    expect(chooseWinner([full(0), full(0)])).toEqual({ winner: 0 });
  });

  it("compares partial runs by their estimates when no candidate ran in full (they share the last full run)", () => {
    expect(chooseWinner([partial(4 / 6), partial(5 / 6), partial(5 / 6)])).toEqual({ winner: 1 });
  });

  it("never lets a partial estimate beat a full run's exact score: that candidate runs in full first", () => {
    // The partial one fixed one failing test of two (5/6 counted); the full one fixed both but broke two others (4/6, exact).
    expect(chooseWinner([full(4 / 6), partial(5 / 6)])).toEqual({ runInFull: 1 });
    expect(chooseWinner([partial(5 / 6), full(4 / 6)])).toEqual({ runInFull: 0 });
    // Even against a full run whose build failed: the estimate is checked, not trusted.
    expect(chooseWinner([partial(0.5), full(0)])).toEqual({ runInFull: 0 });
  });

  it("prefers a full run to a partial one of the same score, whichever came first (an estimate is at most the real score)", () => {
    expect(chooseWinner([partial(0.8), full(0.8)])).toEqual({ winner: 1 });
    expect(chooseWinner([full(0.8), partial(0.8)])).toEqual({ winner: 0 });
  });

  it("keeps a full run that already scores above every partial estimate, without running anything more", () => {
    expect(chooseWinner([partial(0.7), full(1), partial(0.9)])).toEqual({ winner: 1 });
  });

  it("after the whole suite ran for the contested one, chooses on exact scores", () => {
    // The rerun of #1 gave 3/6 (it broke more than the estimate knew): the full run at 4/6 wins.
    expect(chooseWinner([full(4 / 6), full(3 / 6)])).toEqual({ winner: 0 });
    // Two partial ones above a full run: the best runs in full first; if it falls, the next one does.
    expect(chooseWinner([full(0.5), partial(0.9), partial(0.8)])).toEqual({ runInFull: 1 });
    expect(chooseWinner([full(0.5), full(0.4), partial(0.8)])).toEqual({ runInFull: 2 });
  });
});
