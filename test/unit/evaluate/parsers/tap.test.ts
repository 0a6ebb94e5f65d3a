/**
 * Reading TAP with tap-parser (tap-stream.ts) and its YAML by hand (tap-diagnostics.ts): what each runner
 * prints means what it meant, and command output shaped against the YAML or the nesting cannot take the
 * server down.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseTests } from "../../../../src/evaluate/parsers/index.js";
import { errorOfDump } from "../../../../src/evaluate/parsers/util.js";
import type { CommandOutput } from "../../../../src/evaluate/types.js";
import { CWD } from "./corpus.js";

const out = (all: string): CommandOutput => ({ stdout: all, stderr: "", all });
const tap = (...lines: string[]) => out(["TAP version 13", ...lines].join("\n"));

describe("TAP read by tap-parser", () => {
  it("reads TAP 14's `{ }` subtests, directives with trailing words, and ids printed twice", () => {
    const r = parseTests(
      tap(
        "ok 1 - suite # time=3ms {",
        "    1..2",
        "    ok 1 - a",
        "    not ok 2 - b # TODO later",
        "}",
        "ok 2 - c # SKIPPED: not on this platform",
        "ok 2 - d",
        "1..3",
      ),
    );
    expect(r).toMatchObject({ passed: 2, failed: 0, skipped: 2, total: 4, format: "tap" });
    expect(r?.cases).toEqual([
      { name: "suite > a", status: "passed" },
      { name: "suite > b", status: "skipped" },
      { name: "c", status: "skipped" },
      { name: "d", status: "passed" },
    ]);
  });

  it("counts the tests of a subtest whose closing line never came (the process died)", () => {
    const r = parseTests(
      tap("# Subtest: suite", "    # Subtest: a", "    ok 1 - a", "    # Subtest: b", "    not ok 2 - b", "      ---", "      error: 'boom'", "      ..."),
    );
    expect(r).toMatchObject({ passed: 1, failed: 1 });
    expect(r?.failures).toEqual([{ name: "b", message: "boom" }]);
    // 200,000 of them: more than a call's arguments can hold.
    const many = parseTests(out(`TAP version 13\n# Subtest: suite\n${Array.from({ length: 200_000 }, (_, i) => `    ok ${i + 1} - t${i}\n`).join("")}`));
    expect(many).toMatchObject({ passed: 200_000, failed: 0 });
  });

  it("keeps tape's values as printed, not as YAML reads them", () => {
    const r = parseTests(
      tap(
        "# deep",
        "not ok 1 should be deeply equivalent",
        "  ---",
        "    operator: deepEqual",
        "    expected: |-",
        "      { a: 2 }",
        "    actual: { a: 1 }",
        "    at: Test.<anonymous> (/WORKTREE/t.js:3:5)",
        "  ...",
        "# nothing",
        "not ok 2 should be strictly equal",
        "  ---",
        "    operator: equal",
        "    expected: null",
        "    actual:   0",
        "  ...",
        "1..2",
      ),
      { cwd: CWD },
    );
    expect(r?.failures).toEqual([
      { name: "deep", message: "should be deeply equivalent\nexpected: { a: 2 }\nactual: { a: 1 }", file: "t.js", line: 3 },
      { name: "nothing", message: "should be strictly equal\nexpected: null\nactual: 0" },
    ]);
  });

  it("says an error AVA dumps as an object as its default reporter does, and leaves other dumps as they are", () => {
    const point = (n: number, key: string, ...dump: string[]) => [
      `not ok ${n} - t${n}`,
      "  ---",
      "    name: AssertionError",
      "    details:",
      `      '${key}': |-`,
      ...dump.map((l) => `        ${l}`),
      `    message: ${key.replace(/[.:]?\s*(Reason:)?$/, "")}`,
      "  ...",
      "",
    ];
    const r = parseTests(
      out(
        [
          "TAP version 13",
          ...point(1, "Error thrown in test:", "TypeError {", "  code: 'ERR_X',", "  message: 'it \\'broke\\' here',", "}"),
          ...point(2, "Rejected promise returned by test. Reason:", "Error {", "  message: 'network down',", "}"),
          ...point(3, "Rejected promise returned by test. Reason:", "'a plain string'"),
          ...point(4, "Error thrown in test:", "Foo {", "  message: 'not an error',", "}"),
          "1..4",
        ].join("\n"),
      ),
    );
    expect(r?.failures.map((f) => f.message)).toEqual([
      "Error thrown in test: TypeError: it 'broke' here",
      "Rejected promise returned by test: Error: network down",
      "Rejected promise returned by test. Reason:\n'a plain string'",
      "Error thrown in test:\nFoo {\nmessage: 'not an error',\n}",
    ]);
  });

  it("joins a Vitest message whose later lines start at column 0 inside a quoted value", () => {
    const r = parseTests(
      tap(
        "not ok 1 - slow # time=300ms",
        "    ---",
        "    error:",
        '        name: "Error"',
        '        message: "Timed out.',
        'Raise \\"testTimeout\\"."',
        '    at: "/WORKTREE/a.test.js:3:1"',
        "    ...",
        "1..1",
      ),
      { cwd: CWD },
    );
    expect(r?.failures).toEqual([{ name: "slow", message: 'Error: Timed out.\nRaise "testTimeout".', file: "a.test.js", line: 3 }]);
  });
});

describe("TAP output shaped against the parser", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("survives deeply nested YAML flow collections (the yaml package aborted Node on them) and warns nothing", () => {
    const warn = vi.spyOn(process, "emitWarning");
    // 4,000 then 16,000 brackets: the second aborted the whole process when tap-parser parsed the YAML.
    for (const n of [4000, 16000, 64000]) {
      const r = parseTests(tap("not ok 1 - x", "  ---", `  error: ${"[".repeat(n)}`, "  ...", "1..1"));
      expect(r?.failures[0]?.name).toBe("x");
    }
    // Tags, anchors and complex keys, which YAML resolves (and warns about), are text here.
    const r = parseTests(tap("not ok 1 - x", "  ---", "  ? [a]", "  : b", "  e: !t &a *b", "  error: 'boom'", "  ...", "1..1"));
    expect(r?.failures[0]).toEqual({ name: "x", message: "boom" });
    expect(warn).not.toHaveBeenCalled();
  });

  it("reads no YAML block that tap-parser would have opened elsewhere (after junk lines, or never closed)", () => {
    const r = parseTests(
      tap(
        "not ok 1 - x",
        "  junk",
        "  ---",
        `  error: ${"[".repeat(20000)}`,
        "  ...",
        "not ok 2 - y",
        "  ---",
        `  error: ${"{a: ".repeat(5000)}`,
        "ok 3 - z",
        "1..3",
      ),
    );
    expect(r).toMatchObject({ passed: 1, failed: 2 });
  });

  it("reads a YAML block of 10,000 keys in linear time", () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `  k${i}: v`);
    const t0 = performance.now();
    const r = parseTests(tap("not ok 1 - x", "  ---", "  error: 'boom'", ...keys, "  ...", "1..1"));
    expect(r?.failures[0]?.message).toBe("boom");
    // The yaml package's duplicate-key check took 1.6 s on this.
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it("does not recurse once per 4 columns of a line indented by megabytes", () => {
    const r = parseTests(tap(`${" ".repeat(4 * 1024 * 1024)}ok 1 - deep`, "ok 1 - top", "1..1"));
    // Deeper points before a point are its children, at any depth.
    expect(r?.cases).toEqual([{ name: "top > deep", status: "passed" }]);
  });
});

describe("errorOfDump: an error as AVA's concordance prints it (its own report and its TAP YAML alike)", () => {
  it("reads the name and message whether the message follows the head or other keys come first", () => {
    expect(errorOfDump("    TypeError {\n      message: 'Cannot read properties of undefined (reading \\'x\\')',\n    }")).toBe(
      "TypeError: Cannot read properties of undefined (reading 'x')",
    );
    expect(errorOfDump("DatabaseException {\n  code: 'E1',\n  retries: 3,\n  message: 'down',\n}")).toBe("DatabaseException: down");
    expect(errorOfDump("Rejected promise returned by test\n  Error {\n    message: 'a \\\\ b',\n  }")).toBe("Error: a \\ b");
  });
  it("leaves other escapes as printed and reads nothing from other objects or past the error's own end", () => {
    expect(errorOfDump("Error {\n  message: 'line\\nnext',\n}")).toBe("Error: line\\nnext");
    expect(errorOfDump("Point {\n  message: 'not an error',\n}")).toBeUndefined();
    expect(errorOfDump("  Error {\n    code: 1,\n  }\n  other: {\n    message: 'someone else',\n  }")).toBeUndefined();
  });
});
