import { describe, expect, it } from "vitest";
import { parsePatch } from "../../../src/candidate/patch-parse.js";

const body = (h: { lines: Array<{ kind: string; text: string }> }) => h.lines.map((l) => l.kind + l.text);

describe("parsePatch", () => {
  it("reads git headers, strips a/ b/ and keeps hunks per file", () => {
    const [f, g] = parsePatch(
      "diff --git a/x.ts b/x.ts\nindex 1..2 100644\n--- a/x.ts\n+++ b/x.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n@@ -9 +9 @@\n-z\n+y\n" +
        "diff --git a/y.ts b/y.ts\n--- a/y.ts\n+++ b/y.ts\n@@ -1 +1 @@\n-1\n+2\n",
    );
    expect(f!.oldPath).toBe("x.ts");
    expect(f!.newPath).toBe("x.ts");
    expect(f!.hunks.map((h) => h.oldStart)).toEqual([1, 9]);
    expect(body(f!.hunks[0]!)).toEqual([" a", "-b", "+c"]);
    expect(g!.newPath).toBe("y.ts");
    expect(f!.notes).toEqual([]);
  });

  it("keeps names without prefixes as they are, and drops timestamps", () => {
    const [f] = parsePatch("--- src/a.ts\t2024-01-01 10:00:00\n+++ src/a.ts 2024-01-02 11:00:00.123 +0200\n@@ -1 +1 @@\n-a\n+b\n");
    expect(f!.oldPath).toBe("src/a.ts");
    expect(f!.newPath).toBe("src/a.ts");
  });

  it("decodes git's quoted names", () => {
    const [f] = parsePatch(
      'diff --git "a/caf\\303\\251 \\"x\\".txt" "b/caf\\303\\251 \\"x\\".txt"\n--- "a/caf\\303\\251 \\"x\\".txt"\n+++ "b/caf\\303\\251 \\"x\\".txt"\n@@ -1 +1 @@\n-a\n+b\n',
    );
    expect(f!.newPath).toBe('café "x".txt');
  });

  it("reads new, deleted, renamed and copied files and mode changes", () => {
    const files = parsePatch(
      [
        "diff --git a/n.txt b/n.txt",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/n.txt",
        "@@ -0,0 +1 @@",
        "+hi",
        "diff --git a/d.txt b/d.txt",
        "deleted file mode 100755",
        "diff --git a/old.txt b/new.txt",
        "similarity index 100%",
        "rename from old.txt",
        "rename to new.txt",
        "diff --git a/s.txt b/c.txt",
        "copy from s.txt",
        "copy to c.txt",
        "diff --git a/m.sh b/m.sh",
        "old mode 100644",
        "new mode 100755",
        "",
      ].join("\n"),
    );
    expect(files.map((f) => [f.isNew, f.isDeleted, f.isRename, f.isCopy])).toEqual([
      [true, false, false, false],
      [false, true, false, false],
      [false, false, true, false],
      [false, false, false, true],
      [false, false, false, false],
    ]);
    expect(files[0]!.oldPath).toBeNull();
    expect(files[1]!.newPath).toBeNull();
    expect([files[2]!.oldPath, files[2]!.newPath]).toEqual(["old.txt", "new.txt"]);
    expect([files[4]!.oldMode, files[4]!.newMode]).toEqual(["100644", "100755"]);
  });

  it("marks binary diffs", () => {
    const [f] = parsePatch("diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n");
    expect(f!.binary).toBe(true);
  });

  it("uses the lines, not the @@ counts, when they disagree, and says so", () => {
    const [f, g] = parsePatch("--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n a\n-b\n+c\n d\n--- a/y\n+++ b/y\n@@ -1,9 +1,9 @@\n-y\n+z\n");
    expect(body(f!.hunks[0]!)).toEqual([" a", "-b", "+c", " d"]);
    expect(f!.notes.join()).toMatch(/counts/);
    expect(body(g!.hunks[0]!)).toEqual(["-y", "+z"]);
  });

  it("trusts right counts over a deleted line that looks like a header", () => {
    const [f] = parsePatch("--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,3 @@\n--- old comment\n+++ new comment\n select 1;\n \n");
    expect(body(f!.hunks[0]!)).toEqual(["--- old comment", "+++ new comment", " select 1;", " "]);
    expect(f!.notes).toEqual([]);
  });

  it("reads blank lines as blank context and unprefixed lines as context, trailing prose dropped", () => {
    const [f] = parsePatch("--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\nfunction f() {\n\n-  a();\n+  b();\n }\n\nThat is all.\n");
    expect(body(f!.hunks[0]!)).toEqual([" function f() {", " ", "-  a();", "+  b();", " }"]);
    expect(f!.notes.join()).toMatch(/without a leading space/);
  });

  it("reads `No newline at end of file` for the side it follows", () => {
    const [f] = parsePatch("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ Kein Zeilenumbruch am Dateiende.\n");
    const h = f!.hunks[0]!;
    expect(body(h)).toEqual([" a", "-b", "+c"]);
    expect([h.oldNoEol, h.newNoEol]).toEqual([true, true]);
    const [g] = parsePatch("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n\\ No newline at end of file\n");
    expect([g!.hunks[0]!.oldNoEol, g!.hunks[0]!.newNoEol]).toEqual([true, true]);
  });

  it("accepts @@ lines without numbers, code fences and CRLF", () => {
    const [f] = parsePatch("```diff\r\n--- a/x\r\n+++ b/x\r\n@@ @@\r\n-a\r\n+b\r\n```\r\n");
    expect(f!.hunks[0]!.oldStart).toBeNull();
    expect(body(f!.hunks[0]!)).toEqual(["-a", "+b"]);
  });

  it("returns headerless hunks as a file without names", () => {
    const [f] = parsePatch("@@ -3,2 +3,2 @@\n-a\n+b\n x\n");
    expect([f!.oldPath, f!.newPath]).toEqual([null, null]);
    expect(f!.hunks).toHaveLength(1);
  });

  it("finds nothing in prose", () => {
    expect(parsePatch("I could not produce a patch.\n")).toEqual([]);
  });
});
