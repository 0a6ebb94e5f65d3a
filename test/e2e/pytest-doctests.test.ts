/**
 * pytest's doctests through the real server (`--doctest-modules`, `--doctest-glob`): a failing docstring
 * example is one failure, named by its node id (`pkg/timeutil.py::pkg.timeutil.isoparse`, the text file's
 * `README.txt::README.txt`), not also by its section's title (`[doctest] pkg.timeutil.isoparse`). Listed twice,
 * failing first was off without a word and the title stayed behind as a test "no longer reported".
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/client.js";
import { filesOf } from "../helpers/fixtures.js";
import { needs } from "../helpers/real-runners.js";
import { checkoutState, ROOT, repoFromFiles } from "../helpers/repo.js";

type Any = Record<string, any>;
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

/** fixtures/outputs/_projects/pytest-doctest, as committed (the project the captured outputs come from). */
function project(): Record<string, string> {
  const dir = path.join(ROOT, "fixtures/outputs/_projects/pytest-doctest");
  const walk = (rel: string): [string, string][] =>
    readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(path.join(rel, e.name)) : [[path.join(rel, e.name), readFileSync(path.join(dir, rel, e.name), "utf8")] as [string, string]],
    );
  return Object.fromEntries(walk(""));
}

const tools = needs(["pytest"]);
const CMD = "python3 -m pytest -rA -p no:cacheprovider --doctest-modules --doctest-glob='*.txt'";
const DOCTESTS = ["README.txt::README.txt", "pkg/timeutil.py::pkg.timeutil.isoparse"];

describe("pytest doctests", () => {
  it.skipIf(tools.skip)(
    `are named by their node ids: failing first selects them, and the right fix ends the session${tools.why}`,
    async () => {
      const files = project();
      const repo = repoFromFiles({ ...files, ".gitignore": "__pycache__\n" }, "trm-doctest-");
      const before = checkoutState(repo);
      const s = await srv.call<Any>("trm_start_session", { repoPath: repo, testCmd: CMD, preflight: true });
      expect(s.preflight.tests).toMatchObject({ passed: 2, failed: 3 });
      const names = (r: Any) => r.tests.failures.map((f: Any) => f.name).sort();
      expect(names(s.preflight)).toEqual([...DOCTESTS, "tests/test_time.py::test_isoparse"]);
      // The module fixed, the text file's example still wrong: failing first runs the three by their ids.
      const src = files["pkg/timeutil.py"]!;
      const fixed = src.replace("int(d) + 1", "int(d)");
      const half = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesOf({ "pkg/timeutil.py": fixed }) });
      expect(half.partial, half.feedback).toBe(true);
      expect(half.ran).toBe("3 of 5");
      expect(half.feedback).toMatch(/Still fail: README\.txt::README\.txt\./);
      expect(half.feedback).not.toMatch(/\[doctest\]/);
      // The doctest file's example changed alone after the code step: a failing test made to pass by its test
      // alone, held (h29); both changes in one step are judged by their tests.
      const readme = files["README.txt"]!.replace("3\n", "2\n");
      const alone = await srv.call<Any>("trm_submit_candidate", { sessionId: s.sessionId, candidate: filesOf({ "README.txt": readme }) });
      expect([alone.shouldHalt, alone.score < 1]).toEqual([false, true]);
      expect(alone.feedback).toMatch(/Since step 1 only test files changed \("README\.txt"\)/);
      await srv.call<Any>("trm_undo", { sessionId: s.sessionId });
      await srv.call<Any>("trm_undo", { sessionId: s.sessionId });
      const right = await srv.call<Any>("trm_submit_candidate", {
        sessionId: s.sessionId,
        candidate: filesOf({ "pkg/timeutil.py": fixed, "README.txt": readme }),
      });
      expect(right.score).toBe(1);
      expect(right.shouldHalt).toBe(true);
      expect(right.feedback).not.toMatch(/no longer reported/);
      expect(checkoutState(repo)).toEqual(before);
    },
    120_000,
  );
});
