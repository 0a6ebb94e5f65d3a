import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAMP_BODIES as BODIES, CLAMP, clampLib as lib } from "../helpers/clamp-suite.js";
import { startServer, type TestServer } from "../helpers/client.js";
import { commandsRan, filesOf } from "../helpers/fixtures.js";
import { installRunners, RUNNERS } from "../helpers/real-runners.js";
import { checkoutState, repoFromFiles, tmpDir } from "../helpers/repo.js";

/**
 * Failing first (docs/failing-first.md) for the JavaScript runners test/e2e/failing-first.test.ts does not
 * run: node-tap, Jasmine and bun test select by name, run for real through the real server (the selection
 * command built, `ran 2 of 6`, the fallback when the selection matches nothing, the right fix running the
 * whole suite); tape and uvu have no selection, so every step runs the whole suite and the start says so.
 */

type Any = Record<string, any>;

interface Case {
  cmd: string;
  /** The test file's path, and its text with the two failing tests renamed when asked. */
  testFile: string;
  tests: (rename?: boolean) => string;
  /** The selection command that ran (undefined: the runner has none). */
  selection?: RegExp;
  /** The notice when the selection matches no test (the whole suite then runs). */
  nothing?: RegExp;
  /** The start note's word on the runner. */
  note: RegExp;
  /** Every file besides lib.js, package.json and the tests. */
  other?: Record<string, string>;
}

/** `add` and five clamp tests (in a describe block, or titled `clamp: …`); `above …` fail at the baseline. */
function suite(o: { head: string; test: string; describe?: string; eq: (a: string, b: string) => string; end?: string; tail?: string }) {
  return (rename?: boolean) => {
    const one = (name: string, a: string, b: string) =>
      `${o.test}(${JSON.stringify(name)}, ${o.end === undefined ? `() => { ${o.eq(a, b)}; }` : `(t) => { ${o.eq(a, b)}; ${o.end} }`});`;
    const lines = CLAMP.map(([n, a, b]) => one(`${o.describe ? "" : "clamp: "}${n}${rename && n.includes("above") ? " (renamed)" : ""}`, a, b));
    const body = o.describe ? `${o.describe}("clamp", () => {\n${lines.map((l) => `  ${l}`).join("\n")}\n});` : lines.join("\n");
    return `${o.head}\n${one("add: two and three", "add(2, 3)", "5")}\n${body}\n${o.tail ?? ""}`;
  };
}
const IMPORT = 'import { add, clamp } from "../lib.js";';
const expectEq = (a: string, b: string) => `expect(${a}).toBe(${b})`;

const CASES: Record<string, Case> = {
  tap: {
    // tap's default per-file timeout (30 s) is shorter than a file's load on a loaded machine.
    cmd: "npx tap --disable-coverage --timeout=600",
    testFile: "test/clamp.test.js",
    tests: suite({ head: `import t from "tap";\n${IMPORT}`, test: "t.test", eq: (a, b) => `t.equal(${a}, ${b})`, end: "t.end();" }),
    selection:
      /^npx tap --disable-coverage --timeout=600 'test\/clamp\.test\.js' '--grep=\^\(\?:clamp: above falls to hi\|clamp: far above \\\(100\\\) falls to hi\)\$'$/,
    // tap reports the tests its --grep leaves out as skipped (`# SKIP filter`), the file's subtest as passing.
    nothing: /Failing first: .*above falls to hi.* did not run among the selected tests/,
    note: /through node-tap's own selection/,
    other: { ".gitignore": "node_modules\n.tap\n" },
  },
  jasmine: {
    cmd: "npx jasmine",
    testFile: "spec/clamp.spec.js",
    tests: suite({ head: IMPORT, test: "it", describe: "describe", eq: expectEq }),
    // Its specs run in random order: the failing ones are named in the order they failed.
    selection:
      /^npx jasmine '--filter=\^\(\?:(clamp above falls to hi|clamp far above \\\(100\\\) falls to hi)\|(?!\1)(clamp above falls to hi|clamp far above \\\(100\\\) falls to hi)\)\$'$/,
    nothing: /Failing first: the selection matched no test/,
    note: /through Jasmine's own selection/,
    other: {
      "spec/support/jasmine.json":
        '{ "spec_dir": "spec", "spec_files": ["**/*[sS]pec.?(m)js"], "helpers": ["helpers/**/*.?(m)js"], "env": { "random": true } }\n',
    },
  },
  bun: {
    cmd: "npx bun test",
    testFile: "test/clamp.test.js",
    tests: suite({ head: `import { describe, expect, test } from "bun:test";\n${IMPORT}`, test: "test", describe: "describe", eq: expectEq }),
    selection: /^npx bun test '-t' '\^\(\?:clamp above falls to hi\|clamp far above \\\(100\\\) falls to hi\)\$'$/,
    // bun says `regex "…" matched 0 tests` (exit 1) and prints no summary: read as no test run.
    nothing: /Failing first: the selection matched no test/,
    note: /through bun test's own selection/,
  },
  tape: {
    cmd: "npx tape test/*.js",
    testFile: "test/clamp.test.js",
    tests: suite({ head: `import test from "tape";\n${IMPORT}`, test: "test", eq: (a, b) => `t.equal(${a}, ${b})`, end: "t.end();" }),
    note: /failing first: not available \(tape has no way to run tests by name\)/,
  },
  uvu: {
    cmd: "npx uvu test",
    testFile: "test/clamp.test.js",
    tests: suite({
      head: `import { test } from "uvu";\nimport * as assert from "uvu/assert";\n${IMPORT}`,
      test: "test",
      eq: (a, b) => `assert.is(${a}, ${b})`,
      tail: "test.run();\n",
    }),
    note: /failing first: not available \(uvu has no way to run tests by name\)/,
  },
};

let srv: TestServer;
beforeAll(async () => {
  installRunners();
  srv = await startServer({ env: { TMPDIR: tmpDir("trm-ffr-tmp-") } });
}, 600_000);
afterAll(async () => {
  await srv?.close();
});

const submit = (sessionId: string, files: Record<string, string>, rationale: string) =>
  srv.call<Any>("trm_submit_candidate", { sessionId, candidate: filesOf(files), rationale });
const ran = commandsRan;

describe.concurrent("failing first with node-tap, Jasmine, bun test, tape and uvu, run for real", () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: \`${c.cmd}\` ${c.selection ? "selects the failing tests by name, falls back when nothing matches" : "has no selection: every step runs the whole suite"}, and the right fix runs the whole suite`, async () => {
      const repo = repoFromFiles(
        {
          ".gitignore": "node_modules\n",
          "package.json": '{ "name": "calc", "private": true, "type": "module" }\n',
          ...c.other,
          "lib.js": lib(BODIES.bug),
          [c.testFile]: c.tests(),
        },
        "trm-ffr-",
      );
      symlinkSync(path.join(RUNNERS, "node_modules"), path.join(repo, "node_modules"));
      const before = checkoutState(repo);
      const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: c.cmd, preflight: true, linkPaths: ["node_modules"], timeoutSec: 900 });
      const id = s.sessionId as string;
      expect(s.notes.join("\n")).toMatch(c.note);
      expect(s.preflight.tests, JSON.stringify(s.preflight.tests)).toMatchObject({ passed: 4, failed: 2 });

      const same = await submit(id, { "lib.js": lib(BODIES.same) }, "a change that fixes nothing");
      const state = await srv.call<Any>("trm_get_state", { sessionId: id });
      if (c.selection) {
        const log = await srv.call<Any>("trm_read_log", { sessionId: id, at: "1", command: "test", limit: 100_000 });
        expect(same.partial, `${same.feedback}\n${log.content}`).toBe(true);
        expect(same.ran).toBe("2 of 6");
        expect(state.last.commands.map((x: Any) => x.cmd)).toEqual([expect.stringMatching(c.selection)]);
        expect(same.tests).toMatchObject({ passed: 4, failed: 2, total: 6 });
        expect(same.score).toBeCloseTo(4 / 6, 6);
        expect(same.improved).toBe(false);
        expect(same.feedback).toMatch(/PARTIAL: ran 2 of 6/);

        // Both failing tests renamed: the selection matches no test, so the whole suite runs and judges the step.
        const renamed = await submit(id, { [c.testFile]: c.tests(true) }, "rename the failing tests");
        expect(renamed.partial, renamed.feedback).toBeUndefined();
        expect(ran(renamed)).toEqual(expect.arrayContaining(["failingFirst", "test"]));
        expect(renamed.feedback).toMatch(c.nothing!);
        // Judged as at any step: the renamed tests fail (and, where the output names every test, the old names went missing).
        expect(renamed.tests.passed).toBe(4);
        expect(renamed.score).toBeLessThan(4 / 6 + 1e-9);
        await srv.call("trm_undo", { sessionId: id });
      } else {
        expect(same.partial).toBeUndefined();
        expect(ran(same)).not.toContain("failingFirst");
        expect(state.last.commands.map((x: Any) => x.cmd)).toEqual([c.cmd]);
        expect(same.tests).toMatchObject({ passed: 4, failed: 2 });
      }

      const right = await submit(id, { "lib.js": lib(BODIES.right) }, "clamp to both bounds");
      expect(right.partial).toBeUndefined();
      if (c.selection) {
        expect(ran(right)).toContain("failingFirst");
        expect(right.feedback).toMatch(/Failing first: the 2 tests that failed at step 0 pass now, so the whole suite ran/);
      } else expect(ran(right)).not.toContain("failingFirst");
      expect(right.tests).toMatchObject({ passed: 6, failed: 0 });
      expect(right.score).toBe(1);
      expect(right.shouldHalt).toBe(true);
      expect(checkoutState(repo)).toEqual(before);
      await srv.call("trm_end_session", { sessionId: id, discard: true });
    }, 900_000);
  }
});
