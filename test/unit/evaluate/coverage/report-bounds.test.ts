import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseGoProfile } from "../../../../src/evaluate/coverage/go-profile.js";
import { readV8Dir } from "../../../../src/evaluate/coverage/line-hits.js";
import { tmpDir } from "../../../helpers/repo.js";

/**
 * A NODE_V8_COVERAGE report is written by the code under test (a pull request's, in review): what it holds
 * must neither stall the server nor fail the review. v8-to-istanbul walks every line a range spans, for
 * every range: 8,000 ranges over 40,000 lines (a report of 500 KB) held the event loop ~25 s, a few MB
 * held it for hours; a line length of 10^9 in Node's cache threw "Invalid string length" out of the review.
 */

/** A checkout with `a.js` and a V8 report for it whose source-map cache and functions are `cache` and `functions`. */
function report(cache: unknown, functions: unknown[]): { root: string; dir: string } {
  const root = tmpDir("trm-v8-");
  const dir = path.join(root, "v8");
  mkdirSync(dir);
  writeFileSync(path.join(root, "a.js"), "x\n");
  const url = `file://${path.join(root, "a.js")}`;
  writeFileSync(path.join(dir, "coverage-1.json"), JSON.stringify({ result: [{ scriptId: "1", url, functions }], "source-map-cache": { [url]: cache } }));
  return { root, dir };
}

/** The longest the event loop went without a turn while `work` ran. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number; ms: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  const t0 = performance.now();
  try {
    const value = await work();
    stallMs = Math.max(stallMs, performance.now() - last);
    return { value, stallMs, ms: performance.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

describe("a hostile NODE_V8_COVERAGE report, converted", () => {
  it("ranges × lines: converted a slice at a time, other calls going on between, and given up past the budget", async () => {
    const lines = 40_000;
    const range = { startOffset: 0, endOffset: lines * 2, count: 1 };
    const { root, dir } = report({ lineLengths: Array(lines).fill(1) }, [
      { functionName: "f", isBlockCoverage: true, ranges: Array.from({ length: 8000 }, () => range) },
    ]);
    const r = await longestStall(() => readV8Dir(dir, root, new Set(["a.js"]), 1500));
    expect(r.value.cut).toBe(true);
    expect(r.value.hits.size).toBe(0);
    // Generous for a loaded machine: unbounded, the one call took 25 s here, with no turn in between.
    expect(r.ms).toBeLessThan(20_000);
    expect(r.stallMs).toBeLessThan(5000);
  }, 120_000);

  it("an honest report is converted as in one call, slices and all", async () => {
    // 5,000 lines: slices of 400 ranges, so the 602 ranges of f go in two.
    const lineLengths = Array(5000).fill(9);
    const functions = [
      { functionName: "", isBlockCoverage: false, ranges: [{ startOffset: 0, endOffset: 50_000, count: 1 }] },
      {
        functionName: "f",
        isBlockCoverage: true,
        ranges: [
          { startOffset: 10, endOffset: 39, count: 1 },
          ...Array.from({ length: 600 }, () => ({ startOffset: 20, endOffset: 29, count: 2 })),
          { startOffset: 30, endOffset: 39, count: 0 },
        ],
      },
    ];
    const { root, dir } = report({ lineLengths }, functions);
    const r = await readV8Dir(dir, root, new Set(["a.js"]));
    expect(r.cut).toBe(false);
    // What v8-to-istanbul makes of the same ranges in one call.
    const { default: v8toIstanbul } = await import("v8-to-istanbul");
    const conv = v8toIstanbul(path.join(root, "a.js"), 0, { source: lineLengths.map((n) => ".".repeat(n)).join("\n") });
    await conv.load();
    conv.applyCoverage(functions);
    const whole = new Map<number, number>();
    for (const cov of Object.values(conv.toIstanbul()))
      for (const [id, loc] of Object.entries(cov.statementMap)) whole.set(loc.start.line, Math.max(whole.get(loc.start.line) ?? 0, cov.s[id] ?? 0));
    expect(r.hits.get("a.js")).toEqual(whole);
    expect([whole.get(3), whole.get(4), whole.size]).toEqual([2, 0, 5000]);
  });

  it("line lengths no file has (10^9, negative, not numbers) are not a line shape: the script is left out, nothing thrown", async () => {
    for (const lineLengths of [[1e9], [4e8, 4e8], [-1, 2], ["x"], Array(3).fill(2e8)]) {
      const { root, dir } = report({ lineLengths }, [{ functionName: "", isBlockCoverage: false, ranges: [{ startOffset: 0, endOffset: 1, count: 1 }] }]);
      const r = await readV8Dir(dir, root, new Set(["a.js"]));
      expect(r.hits.size).toBe(0);
    }
  }, 60_000);
});

describe("a hostile Go cover profile", () => {
  it("blocks that each span 100,000 lines cost the lines once, not once per block", () => {
    // 35 KB of these held the server 9 s; the 100 MB a profile may have, hours.
    const blocks = Array.from({ length: 3000 }, (_, i) => `example.com/m/a.go:1.1,${100_000 - (i % 7)}.1 1 ${i % 3}`);
    const profile = `mode: set\n${blocks.join("\n")}\n`;
    const t0 = performance.now();
    const g = parseGoProfile(profile, new Map([["example.com/m/a.go", "a.go"]]), new Map([["a.go", 120]]));
    expect(performance.now() - t0).toBeLessThan(2000);
    // Lines past the file's end are no lines of it; each line has the most any block holding it ran.
    expect(g.executable.get("a.go")?.size).toBe(120);
    expect(g.hits.get("a.go")?.get(120)).toBe(2);
  });

  it("each line keeps the most any block holding it ran, blocks overlapping in any order", () => {
    const profile = ["mode: count", "m/a.go:1.1,4.2 2 0", "m/a.go:3.1,6.2 1 5", "m/a.go:5.1,5.9 1 2", "m/a.go:8.1,8.9 1 0", "m/a.go:2.1,3.9 0 9"].join("\n");
    const g = parseGoProfile(profile, new Map([["m/a.go", "a.go"]]));
    expect([...g.hits.get("a.go")!].sort((a, b) => a[0] - b[0])).toEqual([
      [1, 0],
      [2, 0],
      [3, 5],
      [4, 5],
      [5, 5],
      [6, 5],
      [8, 0],
    ]);
    expect([...g.executable.get("a.go")!].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 8]);
  });
});
