import { describe, expect, it } from "vitest";
import { parseRawZ } from "../../../src/cli/commands/apply.js";
import { renderStat } from "../../../src/cli/commands/diff.js";
import { colorEnabled, colorScore, fmtAge, fmtScore, paint, shortPath, table } from "../../../src/cli/format.js";
import { parseWorktreeList } from "../../../src/cli/prune-plan.js";
import { stripAnsi } from "../../../src/util/text.js";

describe("colour", () => {
  it("only on a terminal, never with NO_COLOR or a dumb terminal", () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({}, {})).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    // no-color.org: an empty NO_COLOR does not count.
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
    expect(colorEnabled({ isTTY: true }, { TERM: "dumb" })).toBe(false);
  });

  it("paints nothing when off, and scores by threshold when on", () => {
    expect(paint(false).red("x")).toBe("x");
    const p = paint(true);
    expect(p.red("x")).toBe("\u001b[31mx\u001b[39m");
    expect(colorScore(p, 0.97)).toBe(p.green("0.970"));
    expect(colorScore(p, 0.6)).toBe(p.yellow("0.600"));
    expect(colorScore(p, 0.1)).toBe(p.red("0.100"));
    expect(colorScore(p, null)).toBe(p.dim("-"));
  });
});

describe("table", () => {
  it("aligns columns by visible width, colour codes not counted", () => {
    const p = paint(true);
    const t = table(
      ["ID", "SCORE", "NOTE"],
      [
        ["a", p.green("1.000"), "x"],
        ["bbbb", "0.5", "longer note"],
      ],
      ["left", "right", "left"],
      p,
    );
    expect(stripAnsi(t).split("\n")).toEqual(["ID    SCORE  NOTE", "a     1.000  x", "bbbb    0.5  longer note"]);
  });
});

describe("small formats", () => {
  it("ages, scores and paths", () => {
    expect([0, 59_000, 60_000, 3_599_000, 3_600_000, 47 * 3_600_000, 48 * 3_600_000].map(fmtAge)).toEqual(["0s", "59s", "1m", "59m", "1h", "47h", "2d"]);
    expect(fmtScore(0.75)).toBe("0.750");
    expect(fmtScore(null)).toBe("-");
    expect(shortPath("/r", "/r/.git/x")).toBe(".git/x");
    expect(shortPath("/r", "/rr/x")).toBe("/rr/x");
  });

  it("renders a --stat like git's, binary files included", () => {
    const out = renderStat(
      [
        { path: "a.js", added: 3, removed: 1 },
        { path: "img.png", added: null, removed: null },
      ],
      { paint: paint(false) },
    );
    expect(out).toBe(" a.js    |   4 +++-\n img.png | Bin\n 2 files changed, 3 insertions(+), 1 deletion(-)\n");
    expect(renderStat([], { paint: paint(false) })).toBe("no changes\n");
    // Wide changes are scaled to 40 characters of bar.
    const wide = renderStat([{ path: "big", added: 400, removed: 0 }], { paint: paint(false) });
    expect(wide.split("\n")[0]).toBe(` big | 400 ${"+".repeat(40)}`);
  });
});

describe("git output parsers", () => {
  it("reads `git diff --raw -z`", () => {
    const z = "0".repeat(40);
    const a = "a".repeat(40);
    const b = "b".repeat(40);
    const out = `:100644 100644 ${a} ${b} M\0src/x y.js\0:000000 100755 ${z} ${b} A\0bin/run\0:100644 000000 ${a} ${z} D\0old.txt\0`;
    expect(parseRawZ(out)).toEqual([
      { path: "src/x y.js", status: "M", baseMode: "100644", baseOid: a, targetMode: "100644", targetOid: b },
      { path: "bin/run", status: "A", baseMode: "000000", baseOid: z, targetMode: "100755", targetOid: b },
      { path: "old.txt", status: "D", baseMode: "100644", baseOid: a, targetMode: "000000", targetOid: z },
    ]);
    expect(parseRawZ("")).toEqual([]);
  });

  it("reads `git worktree list --porcelain`", () => {
    const out = [
      "worktree /r",
      "HEAD 1111",
      "branch refs/heads/main",
      "",
      "worktree /r/.git/trm/worktrees/trm-x",
      "HEAD 2222",
      "detached",
      "locked code-trm session x",
      "",
      "worktree /tmp/gone",
      "HEAD 3333",
      "detached",
      "prunable gitdir file points to non-existent location",
      "",
    ].join("\n");
    expect(parseWorktreeList(out)).toEqual([
      { path: "/r", branch: "refs/heads/main", locked: null, prunable: null },
      { path: "/r/.git/trm/worktrees/trm-x", branch: null, locked: "code-trm session x", prunable: null },
      { path: "/tmp/gone", branch: null, locked: null, prunable: "gitdir file points to non-existent location" },
    ]);
  });
});

describe("printable", () => {
  it("makes control characters in model-written text visible instead of sending them to the terminal", async () => {
    const { printable } = await import("../../../src/cli/format.js");
    expect(printable("fix \u001b]0;owned\u0007\u001b[2J done\ttab")).toBe("fix \\x1b]0;owned\\x07\\x1b[2J done\ttab");
    expect(printable("plain text, ünïcödé")).toBe("plain text, ünïcödé");
  });
});
