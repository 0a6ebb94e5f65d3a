import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { patchOf } from "../helpers/fixtures.js";
import { installRunners, RUNNERS } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * Affected first (docs/failing-first.md), vitest and jest run for real through the real server: after a
 * baseline where every test passes, a step breaking a source file is judged by the tests the runner
 * relates to it (the command built, `partial`, `ran 3 of 6`, never best); the step fixing it runs those
 * first (failing first), then the whole suite, and can end the session; a step changing a file no test
 * relates to runs the whole suite.
 */

type Any = Record<string, any>;

interface Case {
  cmd: string;
  esm: boolean;
  scripts?: Record<string, string>;
  /** The command the related run is, as the session's record shows it. */
  related: RegExp;
  /** How failing first then names the failing tests' file, last in its command. */
  file: string;
}

const CASES: Record<string, Case> = {
  "vitest run": { cmd: "npx vitest run", esm: true, related: /^npx vitest related '--run' '\.\/lib\/clamp\.js'$/, file: "'./test/clamp.test.js'" },
  // The script's `run` becomes `related`: npm exec -c runs the rewritten script as npm would.
  "vitest through npm": {
    cmd: "npm test",
    esm: true,
    scripts: { test: "vitest run --reporter=verbose" },
    related: /^npm exec -c 'vitest related --reporter=verbose '\\''--run'\\'' '\\''\.\/lib\/clamp\.js'\\'''$/,
    file: "'./test/clamp.test.js'",
  },
  "jest through npm": {
    cmd: "npm test",
    esm: false,
    scripts: { test: "jest" },
    related: /^npm test -- '--findRelatedTests' '\.\/lib\/clamp\.js'$/,
    file: "'(?:^|/)test\\/clamp\\.test\\.js$'",
  },
  "jest --json": {
    cmd: "npx jest --json",
    esm: false,
    related: /^npx jest --json '--findRelatedTests' '\.\/lib\/clamp\.js'$/,
    file: "'(?:^|/)test\\/clamp\\.test\\.js$'",
  },
};

const RIGHT = "Math.min(hi, Math.max(lo, x))";
const lib = (esm: boolean, name: string, params: string, body: string) =>
  esm ? `export const ${name} = (${params}) => ${body};\n` : `exports.${name} = (${params}) => ${body};\n`;
const imp = (esm: boolean, name: string, file: string) =>
  esm ? `import { ${name} } from "../lib/${file}";` : `const { ${name} } = require("../lib/${file}");`;
const head = (esm: boolean) => (esm ? 'import { describe, expect, test } from "vitest";\n' : "");

/** Three clamp tests, two add tests, one for a file nothing imports at the start; orphan.js is imported by no test. */
function files(c: Case): Record<string, string> {
  const t = (name: string, expr: string, want: string) => `  test(${JSON.stringify(name)}, () => { expect(${expr}).toBe(${want}); });`;
  return {
    ".gitignore": "node_modules\n",
    "package.json": `${JSON.stringify({ name: "calc", private: true, ...(c.esm ? { type: "module" } : {}), ...(c.scripts ? { scripts: c.scripts } : {}) })}\n`,
    "lib/clamp.js": lib(c.esm, "clamp", "x, lo, hi", RIGHT),
    "lib/add.js": lib(c.esm, "add", "a, b", "a + b"),
    "lib/orphan.js": lib(c.esm, "orphan", "", "1"),
    "test/clamp.test.js": `${head(c.esm)}${imp(c.esm, "clamp", "clamp.js")}\ndescribe("clamp", () => {\n${t("inside", "clamp(5, 0, 10)", "5")}\n${t("below", "clamp(-1, 0, 10)", "0")}\n${t("above", "clamp(11, 0, 10)", "10")}\n});\n`,
    "test/add.test.js": `${head(c.esm)}${imp(c.esm, "add", "add.js")}\ndescribe("add", () => {\n${t("two and three", "add(2, 3)", "5")}\n${t("zero", "add(0, 0)", "0")}\n${t("negative", "add(-1, 1)", "0")}\n});\n`,
  };
}

let srv: TestServer;
beforeAll(async () => {
  installRunners();
  srv = await startServer({ env: { TMPDIR: tmpDir("trm-af-tmp-") } });
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

describe.concurrent("affected first, vitest and jest run for real", () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: a step breaking a source file is judged by its related tests; the fix and an unrelated change run the whole suite`, async () => {
      const repo = repoFromFiles(files(c), "trm-af-");
      symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
      const before = checkoutState(repo);
      const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: c.cmd, preflight: true, linkPaths: ["node_modules"] });
      expect(s.notes.join("\n")).toMatch(
        /Affected first: a step after a full run without failures first runs the tests (Vitest|Jest) relates to its changed files/,
      );
      expect(s.preflight.tests).toMatchObject({ passed: 6, failed: 0 });

      // Breaking clamp: only test/clamp.test.js runs, two of its three tests fail.
      const broken = await submit(s.sessionId, { "lib/clamp.js": lib(c.esm, "clamp", "x, lo, hi", "Math.max(lo, x) + (x > 0 ? 1 : 0)") }, "break clamp");
      const log = await srv.call<Any>("trm_read_log", { sessionId: s.sessionId, at: "1", command: "test", limit: 100_000 });
      expect(broken.partial, `${broken.feedback}\n${log.content}`).toBe(true);
      expect(broken.ran).toBe("3 of 6");
      const state = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
      expect(state.last.commands.map((x: Any) => x.cmd)).toEqual([expect.stringMatching(c.related)]);
      expect(broken.tests).toMatchObject({ passed: 4, failed: 2, total: 6 });
      expect(broken.improved).toBe(false);
      expect(broken.shouldHalt).toBe(false);
      expect(broken.feedback).toMatch(
        /Affected first \(partial run, ran 3 of 6\): only the tests (Vitest|Jest) relates to the changed files \(lib\/clamp\.js\) ran/,
      );
      expect(broken.feedback).toMatch(/Failing: clamp > inside, clamp > above\. The other 3 did not run: they count as they were at step 0/);

      // The fix: the two failing tests first (failing first), then the whole suite, which ends the session.
      const fixed = await submit(s.sessionId, { "lib/clamp.js": lib(c.esm, "clamp", "x, lo, hi", `${RIGHT} + 0`) }, "fix clamp");
      expect(fixed.partial).toBeUndefined();
      expect(fixed.feedback).toMatch(/Failing first: the 2 tests that failed after step 0 pass now, so the whole suite ran/);
      expect(fixed.tests).toMatchObject({ passed: 6, failed: 0, total: 6 });
      expect(fixed.score).toBe(1);
      expect(fixed.shouldHalt).toBe(true);
      const fixedState = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
      expect(fixedState.last.commands[0].cmd.endsWith(` ${c.file}`), fixedState.last.commands[0].cmd).toBe(true);

      // A change whose related tests pass: they run, then the whole suite.
      const add = await submit(s.sessionId, { "lib/add.js": lib(c.esm, "add", "a, b", "b + a") }, "commute add");
      expect(add.partial).toBeUndefined();
      expect(add.feedback).toMatch(/Affected first: the 3 tests (Vitest|Jest) relates to lib\/add\.js pass, so the whole suite ran/);
      expect(add.tests).toMatchObject({ passed: 6, failed: 0, total: 6 });
      expect(add.shouldHalt).toBe(true);

      // A file no test relates to: the whole suite runs.
      const orphan = await submit(s.sessionId, { "lib/orphan.js": lib(c.esm, "orphan", "", "2") }, "orphan");
      expect(orphan.partial).toBeUndefined();
      expect(orphan.feedback).toMatch(
        /Affected first: .*(relates no test to lib\/orphan\.js|could not be counted \(it may relate none\)), so the whole suite ran/,
      );
      expect(orphan.tests).toMatchObject({ passed: 6, failed: 0, total: 6 });
      expect(checkoutState(repo)).toEqual(before);
      await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
    }, 240_000);
  }

  for (const name of ["vitest run", "jest --json"]) {
    it(`${name}: failing first runs the failing tests' file alone; a test file moved since matches nothing, and the whole suite runs`, async () => {
      const c = CASES[name]!;
      const repo = repoFromFiles(files(c), "trm-af-");
      symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
      const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: c.cmd, preflight: true, linkPaths: ["node_modules"] });
      const broken = await submit(s.sessionId, { "lib/clamp.js": lib(c.esm, "clamp", "x, lo, hi", "Math.max(lo, x) + (x > 0 ? 1 : 0)") }, "break clamp");
      expect(broken.partial, broken.feedback).toBe(true);
      // The test file moved, the bug left in place.
      const text = files(c)["test/clamp.test.js"]!;
      const patch = patchOf({ deleted: { "test/clamp.test.js": text }, added: { "test/moved.test.js": text } });
      const moved = await srv.call<Any>("trm_submit_candidate", {
        sessionId: s.sessionId,
        candidate: patch,
        rationale: "move the test file",
      });
      expect(moved.partial, moved.feedback).toBeUndefined();
      expect(moved.feedback).toMatch(/Failing first: .*so the whole suite ran/);
      expect(moved.tests).toMatchObject({ passed: 4, failed: 2, total: 6 });
      const state = await srv.call<Any>("trm_get_state", { sessionId: s.sessionId });
      expect(state.last.commands[0].cmd.endsWith(` ${c.file}`), state.last.commands[0].cmd).toBe(true);
      await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
    }, 240_000);
  }

  it("selectTests: false runs the whole suite for a breaking step, with the same final counts", async () => {
    const c = CASES["vitest run"]!;
    const repo = repoFromFiles(files(c), "trm-af-");
    symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
    const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: c.cmd, preflight: true, linkPaths: ["node_modules"], selectTests: false });
    const broken = await submit(s.sessionId, { "lib/clamp.js": lib(c.esm, "clamp", "x, lo, hi", "Math.max(lo, x) + (x > 0 ? 1 : 0)") }, "break clamp");
    expect(broken.partial).toBeUndefined();
    expect(broken.tests).toMatchObject({ passed: 4, failed: 2, total: 6 });
    expect(broken.feedback).not.toMatch(/Affected first/);
    await srv.call("trm_end_session", { sessionId: s.sessionId, discard: true });
  }, 120_000);
});
