import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { briefLine } from "../../../src/evaluate/brief.js";
import type { Evaluation } from "../../../src/evaluate/evaluate.js";
import { reapRecordedAll } from "../../../src/exec/orphans.js";

const cmd = (exitCode: number | null, extra: Record<string, unknown> = {}) => ({
  cmd: "x",
  exitCode,
  timedOut: false,
  durationMs: 1,
  output: "",
  truncated: false,
  ...extra,
});

function ev(over: Partial<Evaluation>): Evaluation {
  return { commands: {}, components: {}, score: 0, testsPass: false, diagnostics: [], notices: [], commandsMs: 0, ...over };
}

describe("briefLine (one line per candidate of a batch)", () => {
  it("says each command's verdict and the first build error", () => {
    const line = briefLine(
      ev({
        commands: { build: cmd(2), test: cmd(null, { skipped: "build failed" }) },
        okBuild: false,
        diagnostics: [
          { file: "src/a.ts", line: 3, code: "TS2304", message: "Cannot find\n   name 'x'.", severity: "error", source: "tsc" },
          { file: "src/b.ts", line: 9, message: "later", severity: "error", source: "tsc" },
        ],
      }),
    );
    expect(line).toBe("build FAILED · test skipped — src/a.ts:3 TS2304 Cannot find name 'x'.");
  });

  it("names the first failing test when the build is fine, and stays one bounded line", () => {
    const long = "m".repeat(5000);
    const line = briefLine(
      ev({
        commands: { build: cmd(0), test: cmd(1), bench: cmd(0) },
        okBuild: true,
        tests: { passed: 3, failed: 1, skipped: 0, total: 4, format: "tap", failures: [{ name: "median of even length", message: long }] },
        perf: { value: 12.5, score: 1 },
      }),
    );
    expect(line.startsWith("build ok · tests 3/4 passed, 1 failed · bench 12.5 — median of even length: mmm")).toBe(true);
    expect(line.length).toBeLessThan(300);
    expect(line).not.toContain("\n");
    expect(briefLine(ev({}))).toBe("no command ran");
  });

  it("says a partial run's counts are from the selected tests (failing first), not the whole suite", () => {
    const tests = { passed: 5, failed: 1, skipped: 0, total: 6, format: "vitest", failures: [{ name: "far above" }] };
    const partial = briefLine(ev({ commands: { test: cmd(1) }, tests, partial: { since: 0, ran: 2, of: 6, nowPass: ["above"], stillFail: ["far above"] } }));
    expect(partial).toBe("tests 5/6 passed, 1 failed (PARTIAL: ran 2 of 6) — far above");
    expect(briefLine(ev({ commands: { test: cmd(1) }, tests }))).toBe("tests 5/6 passed, 1 failed — far above");
  });
});

describe("reapRecordedAll", () => {
  it("reads the group files of a batch's pool worktrees next to the session's, and nothing else", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "trm-reap-"));
    try {
      const base = path.join(dir, "s.pgid");
      // Pids that cannot be live processes of ours: each file is read (and removed) without killing anything.
      for (const f of ["s.pgid.1", "s.pgid.trm-s-2", "s.pgid.trm-s-2.1", "other.pgid.trm-s-2", "s.pgid.x y"]) writeFileSync(path.join(dir, f), "999999999 1\n");
      await reapRecordedAll(base);
      expect(readdirSync(dir).sort()).toEqual(["other.pgid.trm-s-2", "s.pgid.x y"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
