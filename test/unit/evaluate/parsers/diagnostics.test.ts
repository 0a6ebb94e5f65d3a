/** Edge cases of parseDiagnostics beyond the corpus. */
import { describe, expect, it } from "vitest";
import { parseDiagnostics } from "../../../../src/evaluate/parsers/index.js";
import { CWD, loadCase } from "./corpus.js";

const parse = (text: string, cwd = CWD) => parseDiagnostics(text, { cwd });

describe("parseDiagnostics", () => {
  it("returns nothing for empty or unrelated output", () => {
    expect(parse("")).toEqual([]);
    expect(parse("Compiled successfully.\nDone in 1.2s\n")).toEqual([]);
  });

  it("makes paths inside the worktree relative and leaves others alone", () => {
    const text = [
      "/WORKTREE/src/a.ts(1,2): error TS2304: Cannot find name 'a'.",
      "./src/b.ts(3,4): error TS2304: Cannot find name 'b'.",
      "/elsewhere/lib/c.ts(5,6): error TS2304: Cannot find name 'c'.",
      "/WORKTREE-other/d.ts(7,8): error TS2304: Cannot find name 'd'.",
    ].join("\n");
    expect(parse(text).map((d) => d.file)).toEqual(["src/a.ts", "src/b.ts", "/elsewhere/lib/c.ts", "/WORKTREE-other/d.ts"]);
    // A trailing slash on cwd changes nothing.
    expect(parse(text, `${CWD}/`).map((d) => d.file)).toEqual(["src/a.ts", "src/b.ts", "/elsewhere/lib/c.ts", "/WORKTREE-other/d.ts"]);
  });

  it("keeps one copy of identical diagnostics", () => {
    const line = "src/a.ts(1,2): error TS2304: Cannot find name 'a'.";
    const ds = parse([line, line, "src/a.ts:1:2 - error TS2304: Cannot find name 'a'."].join("\n"));
    expect(ds).toEqual([{ file: "src/a.ts", line: 1, column: 2, code: "TS2304", message: "Cannot find name 'a'.", severity: "error", source: "tsc" }]);
  });

  it("reads several tools in one output (a lint script that runs tsc then eslint)", () => {
    const tsc = loadCase("tsc/plain-errors").output.all;
    const eslint = loadCase("eslint/stylish").output.all;
    const ds = parse(`${tsc}\n${eslint}`);
    expect(ds.filter((d) => d.source === "tsc").length).toBe(5);
    expect(ds.filter((d) => d.source === "eslint").length).toBe(8);
  });

  it("reports a traceback at the innermost frame inside the worktree, whatever the stdlib frames after it", () => {
    const ds = parse(loadCase("python/traceback-stdlib").output.all);
    expect(ds).toEqual([
      {
        file: "app/config.py",
        line: 5,
        code: "json.decoder.JSONDecodeError",
        message: "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        severity: "error",
        source: "python",
      },
    ]);
    // Seen from another worktree, no frame is inside: the innermost frame is reported as printed.
    expect(parse(loadCase("python/traceback-stdlib").output.all, "/other")[0]?.file).toBe("/usr/lib/python3.11/json/decoder.py");
  });

  it("reports only the last traceback of a chain, and each of two separate crashes", () => {
    expect(parse(loadCase("python/traceback-chained").output.all).map((d) => d.code)).toEqual(["RuntimeError"]);
    const two = `${loadCase("python/traceback-keyerror").output.all}\nsome log line\n${loadCase("python/traceback-chained").output.all}`;
    expect(parse(two).map((d) => d.code)).toEqual(["KeyError", "RuntimeError"]);
  });

  it("does not read go test logs or panic frames as compiler errors", () => {
    expect(parse(loadCase("go-test/verbose-failing").output.all)).toEqual([]);
    expect(parse(loadCase("go-test/text-failing").output.all).map((d) => d.file)).toEqual(["broken/broken_test.go"]);
  });

  it("drops rustc and cargo summary lines and keeps errors without a location", () => {
    const text = [
      "error: linking with `cc` failed: exit status: 1",
      'error: could not compile `x` (bin "x") due to 1 previous error',
      "error: aborting due to 2 previous errors",
      "warning: 3 warnings emitted",
    ].join("\n");
    expect(parse(text)).toEqual([{ message: "linking with `cc` failed: exit status: 1", severity: "error", source: "rustc" }]);
  });

  it("ignores tsc informational messages and mypy notes", () => {
    const text = [
      "message TS6032: File change detected. Starting incremental compilation...",
      'a.py:3: note: Revealed type is "builtins.int"',
      'a.py:4: error: Name "x" is not defined  [name-defined]',
    ].join("\n");
    expect(parse(text)).toEqual([{ file: "a.py", line: 4, code: "name-defined", message: 'Name "x" is not defined', severity: "error", source: "mypy" }]);
  });

  it("reads an ESLint JSON report printed among other lines", () => {
    const json = loadCase("eslint/json").output.stdout.trim();
    const ds = parse(`> lint\n${json}\nnpm ERR! code 1\n`);
    expect(ds.length).toBe(8);
    expect(ds.every((d) => d.source === "eslint")).toBe(true);
  });

  it("maps severities the way each tool names them", () => {
    const text = [
      "a.py:1:1: W291 trailing whitespace",
      "a.py:2:1: E999 SyntaxError: invalid syntax",
      "b.py:3:0: R0903: Too few public methods (1/2) (too-few-public-methods)",
      "b.py:4:0: F0001: cannot parse (fatal)",
    ].join("\n");
    expect(parse(text).map((d) => `${d.source}:${d.code}:${d.severity}`)).toEqual([
      "flake8:W291:warning",
      "flake8:E999:error",
      "pylint:R0903:warning",
      "pylint:F0001:error",
    ]);
  });
});
