import { describe, expect, it } from "vitest";
import { fileChangeFromContents, parseFilePatch, parseUnifiedDiff } from "../../../src/review/diff.js";
import { lex } from "../../../src/review/lex.js";

const summary = (d: string) =>
  parseUnifiedDiff(d).map((f) => ({
    path: f.path,
    oldPath: f.oldPath,
    status: f.status,
    added: f.added,
    removed: f.linesRemoved,
    text: f.added.map((n) => f.known.get(n)),
  }));

describe("parseUnifiedDiff", () => {
  it("gives added lines their NEW-file numbers across several hunks", () => {
    const d = [
      "diff --git a/src/a.ts b/src/a.ts",
      "index 1111111..2222222 100644",
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -1,4 +1,3 @@",
      " one",
      "-two",
      "-three",
      "+TWO",
      " four",
      "@@ -20,3 +19,5 @@ function f() {",
      " twenty",
      "+new-a",
      "+new-b",
      " twenty-one",
      " twenty-two",
      "",
    ].join("\n");
    expect(summary(d)).toEqual([{ path: "src/a.ts", oldPath: undefined, status: "modified", added: [2, 20, 21], removed: 2, text: ["TWO", "new-a", "new-b"] }]);
  });

  it("handles new, deleted and renamed files and the no-newline marker", () => {
    const d = [
      "diff --git a/new.ts b/new.ts",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/new.ts",
      "@@ -0,0 +1,2 @@",
      "+first",
      "+second",
      "\\ No newline at end of file",
      "diff --git a/gone.ts b/gone.ts",
      "deleted file mode 100644",
      "--- a/gone.ts",
      "+++ /dev/null",
      "@@ -1,2 +0,0 @@",
      "-x",
      "-y",
      "diff --git a/old/name.ts b/new/name.ts",
      "similarity index 90%",
      "rename from old/name.ts",
      "rename to new/name.ts",
      "--- a/old/name.ts",
      "+++ b/new/name.ts",
      "@@ -3,2 +3,3 @@",
      " c",
      "-d",
      "\\ No newline at end of file",
      "+d",
      "+e",
      "diff --git a/pure.ts b/moved.ts",
      "similarity index 100%",
      "rename from pure.ts",
      "rename to moved.ts",
      "",
    ].join("\n");
    expect(summary(d)).toEqual([
      { path: "new.ts", oldPath: undefined, status: "added", added: [1, 2], removed: 0, text: ["first", "second"] },
      { path: "gone.ts", oldPath: undefined, status: "deleted", added: [], removed: 2, text: [] },
      { path: "new/name.ts", oldPath: "old/name.ts", status: "renamed", added: [4, 5], removed: 1, text: ["d", "e"] },
      { path: "moved.ts", oldPath: "pure.ts", status: "renamed", added: [], removed: 0, text: [] },
    ]);
  });

  it("strips CR of CRLF diffs, keeps quoted paths with spaces, and keeps '+++'/'---' content lines inside hunks", () => {
    const d = [
      'diff --git "a/my dir/q.sql" "b/my dir/q.sql"',
      '--- "a/my dir/q.sql"',
      '+++ "b/my dir/q.sql"',
      "@@ -1,3 +1,3 @@",
      " select 1;",
      "--- old comment",
      "+++ new comment",
      " select 2;",
      "",
    ].join("\r\n");
    expect(summary(d)).toEqual([{ path: "my dir/q.sql", oldPath: undefined, status: "modified", added: [2], removed: 1, text: ["++ new comment"] }]);
  });

  it("parses GitHub's header-less per-file patch", () => {
    const f = parseFilePatch("@@ -10,2 +10,3 @@ class A {\n a\n+b\n c", "src/x.ts", "renamed", "src/y.ts");
    expect([f.path, f.oldPath, f.status, f.added, f.known.get(11)]).toEqual(["src/x.ts", "src/y.ts", "renamed", [11], "b"]);
  });
});

describe("fileChangeFromContents", () => {
  it("a new file: every line added", () => {
    const f = fileChangeFromContents("a.ts", "x\ny\n")!;
    expect([f.status, f.added, f.linesAdded, f.known.get(2)]).toEqual(["added", [1, 2], 2, "y"]);
  });

  it("a modified file: added lines numbered in the new content", () => {
    const f = fileChangeFromContents("a.ts", "a\nB\nc\nd2\ne\n", "a\nb\nc\nd\n")!;
    expect([f.status, f.added, f.linesRemoved, f.known.size]).toEqual(["modified", [2, 4, 5], 2, 5]);
  });

  it("identical contents: nothing to review", () => {
    expect(fileChangeFromContents("a.ts", "x\n", "x\n")).toBeNull();
  });
});

/** Collapses runs of blanks so expectations stay readable. */
const squeeze = (s: string): string => s.replace(/ +/g, " ");

describe("lex", () => {
  it("blanks string contents and comments but keeps template interpolations as code", () => {
    const src = 'const a = "any // x"; // any\nconst b = `t ${x ? "y" : `z${w}`} u`; /* any */';
    const m = lex(src, "js");
    // Same length and line breaks as the source, so columns and offsets carry over.
    expect(m.code.length).toBe(src.length);
    expect(squeeze(m.code)).toBe('const a = " "; \nconst b = ` ${x ? " " : ` ${w}`} `; ');
    expect(m.comments.replace(/\s+/g, " ").trim()).toBe("// any /* any */");
    expect(m.strings.map((s) => [s.quote, s.value, s.interpolations])).toEqual([
      ['"', "any // x", []],
      ["`", 't ${x ? "y" : `z${w}`} u', ['x ? "y" : `z${w}`']],
      ['"', "y", []],
      ["`", "z${w}", ["w"]],
    ]);
  });

  it("tells regex literals from division", () => {
    expect(lex("x = a / b / c;", "js").code).toBe("x = a / b / c;");
    expect(squeeze(lex("if (/any|console/.test(s)) f(s.split(/,/));", "js").code)).toBe("if (/ /.test(s)) f(s.split(/ /));");
    expect(squeeze(lex("return /x\\/y[/]/g;", "js").code)).toBe("return / /g;");
  });

  it("knows tagged templates, Python f-strings and # comments", () => {
    expect(lex("db.query(sql`SELECT ${id}`)", "js").strings[0]!.prefix).toBe("sql");
    const py = lex('q = f"SELECT {name}"  # any\ns = """doc\nany"""', "python");
    expect(py.strings.map((s) => [s.prefix, s.value, s.interpolations])).toEqual([
      ["f", "SELECT {name}", ["name"]],
      ["", "doc\nany", []],
    ]);
    expect(py.comments.trim()).toBe("# any");
  });

  it("can start inside a block comment (a hunk in the middle of a doc comment)", () => {
    const m = lex(" * any: x\n */\nlet y: any;", "js", { startInBlockComment: true });
    expect(m.code.split("\n")).toEqual(["         ", "   ", "let y: any;"]);
  });
});

describe("diffs as people and models paste them", () => {
  it("keeps new-file line numbers right when an @@ count is wrong", () => {
    // The first hunk claims 7 new lines but has 3; the second hunk must still start at line 41.
    const diff = ["--- a/src/v.js", "+++ b/src/v.js", "@@ -1,2 +1,7 @@", " a", "+b", " c", "@@ -40,2 +41,3 @@", " x", "+el.innerHTML = input;", " y", ""].join(
      "\n",
    );
    const [f] = parseUnifiedDiff(diff);
    expect(f!.added).toEqual([2, 42]);
    expect(f!.known.get(42)).toBe("el.innerHTML = input;");
  });

  it("decodes C-quoted (non-ASCII) file names", () => {
    const diff = [
      'diff --git "a/sp\\303\\251c.js" "b/sp\\303\\251c.js"',
      '--- "a/sp\\303\\251c.js"',
      '+++ "b/sp\\303\\251c.js"',
      "@@ -1 +1,2 @@",
      " a",
      "+eval(x);",
      "",
    ].join("\n");
    expect(parseUnifiedDiff(diff)[0]!.path).toBe("spéc.js");
  });
});
