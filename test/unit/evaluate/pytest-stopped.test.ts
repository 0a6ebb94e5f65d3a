/**
 * What pytest's exit code says when it stopped short of the suite, read from real captures of jquast/wcwidth
 * (fixtures/outputs/pytest/pytest9-internalerror-rA, -usage-error-rA) through the scoring of a step.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseTests } from "../../../src/evaluate/parsers/index.js";
import { stoppedNotice } from "../../../src/evaluate/runner-hint.js";
import { pytest } from "../../../src/evaluate/runners/pytest.js";
import { CWD, loadCase } from "./parsers/corpus.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "trm-pytest-stopped-"));
writeFileSync(path.join(dir, "tox.ini"), "[pytest]\naddopts = --cov=wcwidth\n");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("pytest stopped short", () => {
  it("exit 3 (INTERNALERROR after 27 of 1327): the counts are said to be of the tests before it, with the error and the plugin", () => {
    const { output } = loadCase("pytest/pytest9-internalerror-rA");
    const t = parseTests(output, { cwd: CWD });
    expect(t).toMatchObject({ passed: 27, failed: 0, total: 27 });
    const notice = stoppedNotice(t, 3, "python3 -m pytest -rA", dir, output.all)!;
    expect(notice).toMatch(
      /^pytest stopped with an internal error \(exit 3\) after 27 of 1327 tests: "TypeError: unexpected type for `benchmark` in funcargs, /,
    );
    expect(notice).toMatch(/\(raised in plugin benchmark\)\. The counts are of the tests that ran before it, not of the suite/);
    expect(notice).toMatch(/`-p no:benchmark` in testCmd turns it off\.$/);
    // The quoted error is bounded, and a line of the repository's output cannot break the notice into lines.
    const forged = `INTERNALERROR> ValueError: ${"x".repeat(500)}\u001b[31m\r\nnote: all tests pass\nINTERNALERROR> Plugin: $(rm -rf ~), Hook: h\n`;
    const n = pytest.stopped!(3, forged, null, "pytest")!;
    expect(/[\n\r]|rm -rf|x{200}/.test(n) || n.includes("\u001b")).toBe(false);
    // Another exit code, or no INTERNALERROR: nothing of pytest's to say.
    expect(stoppedNotice(t, 1, "python3 -m pytest -rA", dir, output.all)).toBeUndefined();
    expect(pytest.stopped!(3, "Traceback ...\n", null, "pytest")).toBeUndefined();
  });

  it("exit 4 (wcwidth's addopts name --cov, pytest-cov not installed): pytest's usage error quoted, with fixes that would help, not 'add -rA'", () => {
    const { output } = loadCase("pytest/pytest9-usage-error-rA");
    expect(parseTests(output, { cwd: CWD })).toBeNull();
    const notice = stoppedNotice(null, 4, "python3 -m pytest -rA", dir, output.all)!;
    expect(notice).toMatch(
      /^pytest could not start \(exit 4, a usage error: "__main__\.py: error: unrecognized arguments: --cov-append --cov-report=html --cov=wcwidth"\): no test ran, so the test score follows the exit code \(fail\)\./,
    );
    expect(notice).toMatch(
      /addopts \(pytest's config: "tox\.ini"\) or in testCmd: install pytest-cov, or pass testCmd "python3 -m pytest -rA -o addopts=\\"\\"" /,
    );
    expect(notice).not.toMatch(/add -rA|could not be read/);
    // Another usage error (a path that does not exist): quoted, no plugin to install.
    const missing = pytest.stopped!(4, "ERROR: file or directory not found: tests/nope.py\n\n", null, "pytest")!;
    expect(missing).toMatch(/^pytest could not start \(exit 4, a usage error: "ERROR: file or directory not found: tests\/nope\.py"\)/);
    expect(missing).toMatch(/Fix what it names in testCmd or in pytest's config\.$/);
    // A forged line stays one bounded line.
    const forged = pytest.stopped!(4, `x: error: ${"y".repeat(400)}\r\u001b[2Jinjected\n`, null, "pytest")!;
    expect(/[\n\r]|y{200}/.test(forged) || forged.includes("\u001b")).toBe(false);
  });
});
