import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { installRunners, RUNNERS } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * Affected first (docs/failing-first.md) when the step deletes or renames a related test, Jest's JSON and
 * Vitest's verbose reporters run for real through the real server. Their output names each test's file, so
 * a test of a file the related run ran that it no longer reports is known gone: the whole suite runs and
 * judges the step as at any step (a reference test gone counts as failing). Kept at its passing status of
 * the last full run, it made the partial estimate overstate (4 of 6 where the suite says 3 of 6).
 */

type Any = Record<string, any>;

const CASES = {
  "jest --json": { cmd: "npx jest --json", esm: false },
  "vitest --reporter=verbose": { cmd: "npx vitest run --reporter=verbose", esm: true },
};

const RIGHT = "Math.min(hi, Math.max(lo, x))";
const BROKEN = "Math.max(lo, x) + (x > 0 ? 1 : 0)";

function files(esm: boolean, clampTests: [string, string, string][], clampBody = RIGHT): Record<string, string> {
  const lib = (name: string, params: string, body: string) =>
    esm ? `export const ${name} = (${params}) => ${body};\n` : `exports.${name} = (${params}) => ${body};\n`;
  const imp = (name: string, file: string) => (esm ? `import { ${name} } from "../lib/${file}";` : `const { ${name} } = require("../lib/${file}");`);
  const head = esm ? 'import { describe, expect, test } from "vitest";\n' : "";
  const t = ([name, expr, want]: [string, string, string]) => `  test(${JSON.stringify(name)}, () => { expect(${expr}).toBe(${want}); });`;
  return {
    ".gitignore": "node_modules\n",
    "package.json": `${JSON.stringify({ name: "calc", private: true, ...(esm ? { type: "module" } : {}) })}\n`,
    "lib/clamp.js": lib("clamp", "x, lo, hi", clampBody),
    "lib/add.js": lib("add", "a, b", "a + b"),
    "test/clamp.test.js": `${head}${imp("clamp", "clamp.js")}\ndescribe("clamp", () => {\n${clampTests.map(t).join("\n")}\n});\n`,
    "test/add.test.js": `${head}${imp("add", "add.js")}\ndescribe("add", () => {\n${[
      ["two and three", "add(2, 3)", "5"],
      ["zero", "add(0, 0)", "0"],
      ["negative", "add(-1, 1)", "0"],
    ]
      .map((x) => t(x as [string, string, string]))
      .join("\n")}\n});\n`,
  };
}
const INSIDE: [string, string, string] = ["inside", "clamp(5, 0, 10)", "5"];
const BELOW: [string, string, string] = ["below", "clamp(-1, 0, 10)", "0"];
const ABOVE: [string, string, string] = ["above", "clamp(11, 0, 10)", "10"];

let srv: TestServer;
beforeAll(async () => {
  installRunners();
  srv = await startServer({ env: { TMPDIR: tmpDir("trm-afg-tmp-") } });
}, 600_000);
afterAll(async () => {
  await srv?.close();
});

describe.concurrent("affected first: a related test the step deletes or renames", () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: is known gone by its file, so the whole suite judges the step`, async () => {
      const repo = repoFromFiles(files(c.esm, [INSIDE, BELOW, ABOVE]), "trm-afg-");
      symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
      const before = checkoutState(repo);
      const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: c.cmd, preflight: true, linkPaths: ["node_modules"] });
      expect(s.preflight.tests).toMatchObject({ passed: 6, failed: 0 });
      const step = async (tests: [string, string, string][], rationale: string) => {
        const f = files(c.esm, tests, BROKEN);
        const r = await srv.call<Any>("trm_submit_candidate", {
          sessionId: s.sessionId,
          candidate: { mode: "files", files: ["lib/clamp.js", "test/clamp.test.js"].map((p) => ({ path: p, content: f[p] })) },
          rationale,
        });
        const state = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
        await srv.call("trm_undo", { sessionId: s.sessionId });
        return { r, cmds: state.last.commands.map((x: Any) => x.cmd) as string[] };
      };

      // clamp broken (inside and above fail) and its passing `below` test deleted.
      const deleted = await step([INSIDE, ABOVE], "break clamp, delete a test");
      expect(deleted.r.partial, deleted.r.feedback).toBeUndefined();
      expect(deleted.r.feedback).toMatch(
        /Affected first: clamp > below of the files the step changed or (Jest|Vitest) related to them did not run \(deleted or renamed\), so the whole suite ran/,
      );
      expect(deleted.cmds).toEqual([expect.stringMatching(/related|findRelatedTests/), c.cmd]);
      // The suite's verdict: the deleted test counts as failing, 3 of 6 (the estimate said 4 of 6).
      expect(deleted.r.tests).toMatchObject({ passed: 3, failed: 3 });
      expect(deleted.r.score).toBeLessThan(4 / 6 - 0.01);

      // Renamed: the old name went missing (failing), the new one counts only while it fails: 3 of 6 (the estimate
      // kept the old name passing beside the new one).
      const renamed = await step([INSIDE, ["below (renamed)", BELOW[1], BELOW[2]], ABOVE], "break clamp, rename a test");
      expect(renamed.r.partial, renamed.r.feedback).toBeUndefined();
      expect(renamed.r.feedback).toMatch(/Affected first: clamp > below of the files .* did not run \(deleted or renamed\)/);
      expect(renamed.r.tests, renamed.r.feedback).toMatchObject({ passed: 3, failed: 3 });
      expect(renamed.r.feedback).toMatch(/clamp > below \(went missing at step 1\)/);

      // The same break with every test kept: a partial verdict, as before.
      const kept = await step([INSIDE, BELOW, ABOVE], "break clamp");
      expect(kept.r.partial, kept.r.feedback).toBe(true);
      expect(kept.r.tests).toMatchObject({ passed: 4, failed: 2 });
      expect(checkoutState(repo)).toEqual(before);
      await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
    }, 300_000);
  }
});
