import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { installRunners, RUNNERS } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * Affected first where the runner's related tests are not a subset of what the test command runs, and
 * steps that game the related run; jest and vitest run for real through the real server.
 */

type Any = Record<string, any>;

let srv: TestServer;
beforeAll(async () => {
  installRunners();
  srv = await startServer({ env: { TMPDIR: tmpDir("trm-afa-tmp-") } });
}, 600_000);
afterAll(async () => {
  await srv?.close();
});

const submit = (sessionId: string, changes: Record<string, string>, rationale: string) =>
  srv.call<Any>("trm_submit_candidate", {
    sessionId,
    candidate: { mode: "files", files: Object.entries(changes).map(([p, content]) => ({ path: p, content })) },
    rationale,
  });

const CLAMP = "exports.clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));\n";
const req = 'const { clamp } = require("../../lib/clamp.js");\n';

describe.concurrent("affected first attacks, run for real", () => {
  for (const [cmd, why] of [
    ["npx jest --json --testPathPatterns=test/unit", /with --testPathPatterns, the tests Jest relates to a file may be ones/],
    ["npx jest --json --ci test/unit", /`npx jest --json --ci test\/unit` names tests to run \(test\/unit\)/],
  ] as const) {
    it(`${cmd}: a test the command leaves out (jest relates it anyway) never judges a step`, async () => {
      const repo = repoFromFiles(
        {
          ".gitignore": "node_modules\n",
          "package.json": '{"name":"calc","private":true}\n',
          "lib/clamp.js": CLAMP,
          "test/unit/clamp.test.js": `${req}test("inside", () => { expect(clamp(5, 0, 10)).toBe(5); });\ntest("below", () => { expect(clamp(-1, 0, 10)).toBe(0); });\n`,
          // Left out of the suite by the command: it fails, and always has.
          "test/slow/clamp.test.js": `${req}test("slow", () => { expect(clamp(5, 0, 10)).toBe(6); });\n`,
        },
        "trm-afa-",
      );
      symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
      const before = checkoutState(repo);
      const s = await srv.call<Any>("trm_start_session", {
        repoPath: repo,
        testCmd: cmd,
        preflight: true,
        linkPaths: ["node_modules"],
      });
      expect(s.preflight.tests).toMatchObject({ passed: 2, failed: 0 });
      expect(s.notes.join("\n")).toMatch(why);
      const r = await submit(s.sessionId, { "lib/clamp.js": `${CLAMP}// same clamp\n` }, "a comment");
      expect(r.partial, r.feedback).toBeUndefined();
      expect(r.tests).toMatchObject({ passed: 2, failed: 0, total: 2 });
      expect(r.score).toBe(1);
      expect(r.shouldHalt).toBe(true);
      expect(checkoutState(repo)).toEqual(before);
      await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
    }, 240_000);
  }

  for (const cmd of ["npx vitest run", "npx vitest run --reporter=json"]) {
    it(`${cmd}: a step that breaks a source and skips a related test it fails counts as the whole suite counts it`, async () => {
      const lib = (body: string) => `export const clamp = (x, lo, hi) => ${body};\n`;
      const t = (name: string, expr: string, want: string, skip = false) =>
        `  test${skip ? ".skip" : ""}(${JSON.stringify(name)}, () => { expect(${expr}).toBe(${want}); });`;
      const clampTest = (skipInside: boolean) =>
        `import { describe, expect, test } from "vitest";\nimport { clamp } from "../lib/clamp.js";\ndescribe("clamp", () => {\n${t("inside", "clamp(5, 0, 10)", "5", skipInside)}\n${t("below", "clamp(-1, 0, 10)", "0")}\n${t("above", "clamp(11, 0, 10)", "10")}\n});\n`;
      const repo = repoFromFiles(
        {
          ".gitignore": "node_modules\n",
          "package.json": '{"name":"calc","private":true,"type":"module"}\n',
          "lib/clamp.js": lib("Math.min(hi, Math.max(lo, x))"),
          "lib/add.js": "export const add = (a, b) => a + b;\n",
          "test/clamp.test.js": clampTest(false),
          "test/add.test.js": `import { expect, test } from "vitest";\nimport { add } from "../lib/add.js";\ntest("add", () => { expect(add(2, 3)).toBe(5); });\n`,
        },
        "trm-afa-",
      );
      symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
      // inside and above fail with this clamp; inside is skipped.
      const step = { "lib/clamp.js": lib("Math.max(lo, x) + (x > 0 ? 1 : 0)"), "test/clamp.test.js": clampTest(true) };
      const [partial, whole] = await Promise.all(
        [true, false].map(async (selectTests) => {
          const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: cmd, preflight: true, linkPaths: ["node_modules"], selectTests });
          expect(s.preflight.tests).toMatchObject({ passed: 4, failed: 0 });
          const r = await submit(s.sessionId, step, "break and skip");
          await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
          return r;
        }),
      );
      expect(partial!.partial, partial!.feedback).toBe(true);
      expect(whole!.partial).toBeUndefined();
      const of = (r: Any) => [r.tests.passed, r.tests.failed, r.score];
      expect(of(partial!), `${partial!.feedback}\n---\n${whole!.feedback}`).toEqual(of(whole!));
    }, 240_000);
  }
});
