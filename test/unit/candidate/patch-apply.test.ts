import { describe, expect, it } from "vitest";
import { issuesOf, lines, run } from "./helpers.js";

const file = lines(60);
const hunk = (start: number, ctx: string[], from: string, to: string) =>
  `@@ -${start},${ctx.length * 2 + 1} +${start},${ctx.length * 2 + 1} @@\n${ctx.map((c) => ` ${c}\n`).join("")}-${from}\n+${to}\n${ctx.map((c) => ` ${c}\n`).join("")}`;

describe("patch placement", () => {
  it("carries the offset found for one hunk to the next", async () => {
    const shifted = lines(5, (i) => `// new ${i}`) + file;
    const patch =
      "--- a/f\n+++ b/f\n" +
      hunk(9, ["line 9"], "line 10", "TEN").replace(" line 9\n-line 10\n+TEN\n line 9", " line 9\n-line 10\n+TEN\n line 11") +
      hunk(39, ["line 39"], "line 40", "FORTY").replace("+FORTY\n line 39", "+FORTY\n line 41");
    const r = await run({ f: shifted }, { mode: "patch", patch });
    expect(r.files.f).toBe(shifted.replace("line 10\n", "TEN\n").replace("line 40\n", "FORTY\n"));
    expect(r.plan.fuzz).toEqual([
      "f hunk 1: applied at line 14, 5 line(s) below the stated line 9",
      "f hunk 2: applied at line 44, 5 line(s) below the stated line 39",
    ]);
  });

  it("places a hunk far from its stated line when the match is unique", async () => {
    const patch = "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n line 49\n-line 50\n+FIFTY\n line 51\n";
    const r = await run({ f: file }, { mode: "patch", patch });
    expect(r.files.f).toBe(file.replace("line 50\n", "FIFTY\n"));
  });

  it("reports every failing hunk with expected and closest lines, and a hint", async () => {
    const patch = "--- a/f\n+++ b/f\n@@ -10,3 +10,3 @@\n line 9\n-line ten\n+X\n line 11\n@@ -30,2 +30,2 @@\n-no such line\n+Y\n qqq\n";
    const issues = await issuesOf({ f: file }, { mode: "patch", patch });
    expect(issues.map((i) => i.hunk)).toEqual([1, 2]);
    expect(issues[0]).toMatchObject({ file: "f", expected: ["line 9", "line ten", "line 11"], closest: { line: 9, text: ["line 9", "line 10", "line 11"] } });
    expect(issues[0]!.closest!.score).toBeGreaterThan(0.8);
    expect(issues[0]!.hint).toMatch(/modify/);
  });

  it("does not place a pure addition without line numbers in a non-empty file", async () => {
    const issues = await issuesOf({ f: file }, { mode: "patch", patch: "--- a/f\n+++ b/f\n@@ @@\n+new\n" });
    expect(issues[0]!.message).toMatch(/cannot be placed/);
  });

  it("places a pure addition by its stated line", async () => {
    const r = await run({ f: "a\nb\n" }, { mode: "patch", patch: "--- a/f\n+++ b/f\n@@ -1,0 +2 @@\n+x\n" });
    expect(r.files.f).toBe("a\nx\nb\n");
  });

  it("refuses an addition after a line past the end of the file", async () => {
    const issues = await issuesOf({ f: "a\n" }, { mode: "patch", patch: "--- a/f\n+++ b/f\n@@ -7,0 +8 @@\n+x\n" });
    expect(issues[0]!.message).toMatch(/file has 1 lines/);
  });

  it("re-indents added lines and reports it as fuzz", async () => {
    const src = "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n";
    const patch = "--- a/p.py\n+++ b/p.py\n@@ -2,2 +2,3 @@\n     if x:\n         return 1\n+    log(x)\n";
    const r = await run({ "p.py": src }, { mode: "patch", patch });
    expect(r.files["p.py"]).toBe("def f():\n\tif x:\n\t\treturn 1\n\tlog(x)\n\treturn 2\n");
    expect(r.plan.fuzz.join()).toMatch(/ignoring whitespace.*re-indented/);
  });

  it("is all-or-nothing across files: one failing file means no ops", async () => {
    const patch = "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+A\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-zzz\n+B\n";
    const issues = await issuesOf({ a: "a\n", b: "b\n" }, { mode: "patch", patch });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.file).toBe("b");
  });

  it("refuses patching a missing file, and suggests /dev/null for pure additions not stated as -0,0", async () => {
    const issues = await issuesOf({}, { mode: "patch", patch: "--- a/n.txt\n+++ b/n.txt\n@@ -1,0 +1 @@\n+x\n" });
    expect(issues[0]!.message).toMatch(/does not exist/);
    expect(issues[0]!.hint).toMatch(/dev\/null/);
  });

  it("refuses headerless hunks in mode patch, and prose without any diff", async () => {
    expect((await issuesOf({ f: file }, { mode: "patch", patch: "@@ -1 +1 @@\n-line 1\n+x\n" }))[0]!.message).toMatch(/no file header/);
    expect((await issuesOf({ f: file }, { mode: "patch", patch: "sorry, no patch" }))[0]!.message).toMatch(/no file header and no @@/);
  });

  it("refuses paths outside the repository named in a patch", async () => {
    const issues = await issuesOf({}, { mode: "patch", patch: "--- /dev/null\n+++ b/../evil\n@@ -0,0 +1 @@\n+x\n" });
    expect(issues[0]!.message).toMatch(/escapes/);
    const git = await issuesOf({}, { mode: "patch", patch: "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+x\n" });
    expect(git[0]!.message).toMatch(/\.git/);
  });

  it("finds a file whose path really starts with a/", async () => {
    const r = await run({ "a/x.txt": "1\n" }, { mode: "patch", patch: "--- a/x.txt\n+++ a/x.txt\n@@ -1 +1 @@\n-1\n+2\n" });
    expect(r.files["a/x.txt"]).toBe("2\n");
  });

  it("refuses a rename onto an existing file and a binary diff", async () => {
    const ren = await issuesOf(
      { "a.txt": "a\n", "b.txt": "b\n" },
      { mode: "patch", patch: "diff --git a/a.txt b/b.txt\nrename from a.txt\nrename to b.txt\n" },
    );
    expect(ren[0]!.message).toMatch(/already exists/);
    const bin = await issuesOf({ "i.png": "x" }, { mode: "patch", patch: "diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n" });
    expect(bin[0]!.message).toMatch(/binary diff/);
  });

  it("refuses to delete a file whose removed lines are not its content (as git apply does)", async () => {
    await expect(run({ d: "new content\n" }, { mode: "patch", patch: "--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-old content\n" })).rejects.toThrow(
      /lines it removes are not the file's current content/,
    );
  });

  it("ignores mode changes with a warning", async () => {
    const r = await run(
      { "s.sh": "echo\n" },
      { mode: "patch", patch: "diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\n--- a/s.sh\n+++ b/s.sh\n@@ -1 +1 @@\n-echo\n+echo hi\n" },
    );
    expect(r.files["s.sh"]).toBe("echo hi\n");
    expect(r.plan.warnings.join()).toMatch(/mode change/);
  });

  it("copies a file with an edit and keeps the source", async () => {
    const r = await run(
      { "s.txt": "a\nb\n" },
      { mode: "patch", patch: "diff --git a/s.txt b/c.txt\ncopy from s.txt\ncopy to c.txt\n--- a/s.txt\n+++ b/c.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n" },
    );
    expect(r.files).toEqual({ "s.txt": "a\nb\n", "c.txt": "a\nB\n" });
  });
});

describe("mode diff", () => {
  it("applies to the path field and warns when the header names another file", async () => {
    const r = await run({ "x.txt": "1\n2\n" }, { mode: "diff", diffs: [{ path: "x.txt", diff: "--- a/y.txt\n+++ b/y.txt\n@@ -1,2 +1,2 @@\n 1\n-2\n+3\n" }] });
    expect(r.files["x.txt"]).toBe("1\n3\n");
    expect(r.plan.warnings.join()).toMatch(/names y.txt/);
  });

  it("deletes through a /dev/null target", async () => {
    const r = await run({ "x.txt": "1\n" }, { mode: "diff", diffs: [{ path: "x.txt", diff: "--- a/x.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-1\n" }] });
    expect(r.files).toEqual({});
  });

  it("reports a diff without hunks, one with several files, and a path given twice", async () => {
    const issues = await issuesOf(
      { "a.txt": "a\n", "b.txt": "b\n" },
      {
        mode: "diff",
        diffs: [
          { path: "a.txt", diff: "just replace a with b" },
          { path: "b.txt", diff: "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+c\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+c\n" },
          { path: "a.txt", diff: "@@ -1 +1 @@\n-a\n+c\n" },
        ],
      },
    );
    expect(issues.map((i) => i.message)).toEqual([
      expect.stringMatching(/no @@ hunk/),
      expect.stringMatching(/contains 2 files/),
      expect.stringMatching(/already given/),
    ]);
  });
});
