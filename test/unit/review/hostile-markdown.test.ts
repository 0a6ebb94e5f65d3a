import { describe, expect, it } from "vitest";
import type { Io } from "../../../src/cli/command.js";
import { paintText } from "../../../src/cli/commands/review.js";
import { paint } from "../../../src/cli/format.js";
import { ranText, strengthFindings, type TestStrength } from "../../../src/evaluate/test-strength.js";
import { keyIn, planReview } from "../../../src/review/post.js";
import { toolComments } from "../../../src/review/project-tools.js";
import { renderReviewText } from "../../../src/review/render.js";
import { reviewPr } from "../../../src/review/review.js";
import type { ReviewResult } from "../../../src/review/schema.js";
import { strengthComments } from "../../../src/review/test-strength.js";
import { codeBlock, codeSpan } from "../../../src/util/text.js";

/**
 * A surviving mutant's comment quotes the PR: its diff is the PR's code, the tests' names come from the
 * PR's test output, the file's name from its tree. None of it may act as Markdown in a posted comment
 * (a mention pings people with the reviewer's token, a `-` line becomes a list, a hidden key would be
 * taken for another comment's), nor as an escape sequence on a terminal.
 */

const OTHER_KEY = "<!-- code-trm:src/other.py:9:surviving-mutant -->";
const diff = `-    team = "@octo-org/security" ${OTHER_KEY} \`\`\`\n+    team = ""`;
const strength = {
  coverage: null,
  mutation: {
    results: [],
    survived: [
      {
        file: "src/a.py",
        line: 3,
        mutator: "StringLiteral",
        diff,
        cmd: "python -m pytest -q",
        tests: { passed: 2, names: ["pings @octo-org/owners", "has ``` and\nnewline"] },
      },
    ],
    notRun: 0,
    chosen: 1,
    durationMs: 1,
    notes: [],
  },
  notes: [],
} as unknown as TestStrength;
const files = [{ path: "src/a.py", status: "modified", added: [3], removed: [] }] as never;

describe("a surviving mutant's comment on a hostile pull request", () => {
  it("fences the diff and puts each test name in a code span that its backticks cannot close", () => {
    const [c] = strengthComments(strengthFindings(strength), files);
    expect(c!.suggestion).toBe(`A test that fails on this mutant:\n\`\`\`\`diff\n${diff}\n\`\`\`\``);
    expect(c!.message).toContain("among them `pings @octo-org/owners`, ```` has ``` and newline ````");
  });

  it("is found again by its own key, not by a key the diff quotes", () => {
    const [c] = strengthComments(strengthFindings(strength), files);
    const r = { summary: { highlights: [] }, comments: [c!] } as unknown as ReviewResult;
    const [posted] = planReview(r).comments;
    expect(posted!.body).toContain(OTHER_KEY);
    expect(keyIn(posted!.body)).toBe("<!-- code-trm:src/a.py:3:surviving-mutant -->");
  });

  it("lists a finding beyond the inline cap with its path in a code span that a backtick in the path cannot close", () => {
    const c = { file: "a`@octo-org/owners`.py", line: 2, severity: "warning", category: "testing", rule: "r", message: "m" };
    const { body } = planReview({ summary: { highlights: [] }, comments: [c, c] } as unknown as ReviewResult, 1);
    expect(body).toContain("- `` a`@octo-org/owners`.py:2 `` warning `r`: m");
  });

  it("escapes a path's --> and line breaks in the key, so the key stays one hidden comment", () => {
    const c = { file: "x-->\n<b>.py", line: 1, severity: "warning", category: "testing", rule: "r", message: "m" };
    const [posted] = planReview({ summary: { highlights: [] }, comments: [c] } as unknown as ReviewResult).comments;
    expect(keyIn(posted!.body)).toBe("<!-- code-trm:x--%3E%0A<b%3E.py:1:r -->");
  });

  it("shows the review on a terminal with the PR's control characters made visible", () => {
    const r = {
      summary: { filesChanged: 1, linesAdded: 1, linesRemoved: 0, criticalCount: 0, warningCount: 1, infoCount: 0, assessment: "comments", highlights: [] },
      comments: [{ file: "a\u001b]0;pwned\u0007.py", line: 1, severity: "warning", category: "testing", rule: "r", message: "\u001b[2Jcleared" }],
    } as unknown as ReviewResult;
    const text = paintText(r, { paint: paint(false) } as Io, renderReviewText);
    expect(text.includes("\u001b") || text.includes("\u0007")).toBe(false);
    expect(text).toContain("a\\x1b]0;pwned\\x07.py:1 [warning] testing: \\x1b[2Jcleared");
  });
});

describe("code spans and blocks", () => {
  it("a span is one line and longer than any backtick run inside; a block's fence is too", () => {
    expect(codeSpan("plain")).toBe("`plain`");
    expect(codeSpan("a`b")).toBe("`` a`b ``");
    expect(codeSpan("two\r\nlines")).toBe("`two lines`");
    expect(codeBlock("x")).toBe("```\nx\n```");
    expect(codeBlock("```js\n````", "diff")).toBe("`````diff\n```js\n````\n`````");
  });

  it("ranText names the tests as code spans", () => {
    expect(ranText({ passed: 3, names: ["a", "b"] })).toBe(": 3 tests passed, among them `a`, `b`");
  });
});

describe("rule messages that quote the pull request", () => {
  const HOSTILE = "@octo-org/owners <img src=x> `";
  const codeOf = (n: number) => Array.from({ length: n }, (_, i) => `export const v${i} = compute(${i}) + other(${i});`).join("\n");

  it("quote a TODO's text as a code span", async () => {
    const r = await reviewPr({ files: [{ path: "src/a.ts", content: `// TODO: ask ${HOSTILE} first\n` }], focus: ["todos"] });
    expect(r.comments.map((c) => c.message)).toEqual([`New TODO: \`\` TODO: ask ${HOSTILE} first \`\`.`]);
  });

  it("quote a path as a code span (a duplicate's first copy, a file without tests, a critical finding's highlight)", async () => {
    const block = [
      "const user = await repo.findUser(id);",
      "if (!user) throw new NotFound(id);",
      "const orders = await repo.ordersOf(user);",
      "const total = orders.reduce(sum, 0);",
      "audit.record(user, total);",
      "return { user, total };",
    ];
    const first = `src/${HOSTILE}.ts`;
    const dup = await reviewPr({
      files: [
        { path: first, content: `async function a(id: string) {\n${block.map((l) => `  ${l}`).join("\n")}\n}\n` },
        { path: "src/b.ts", content: `async function b(id: string) {\n${block.map((l) => `  ${l}`).join("\n")}\n}\n` },
      ],
      focus: ["code-quality"],
    });
    expect(dup.comments.find((c) => c.rule === "duplicate-block")?.message).toBe(`This block repeats the code added at \`\` ${first}:2 \`\`.`);
    const untested = await reviewPr({ files: [{ path: first, content: `${codeOf(30)}\n` }], focus: ["testing"] });
    expect(untested.comments.find((c) => c.rule === "missing-tests")?.message).toContain(`of \`\` ${first} \`\` changed`);
    const critical = await reviewPr({ files: [{ path: first, content: "export const run = (s: string) => eval(s);\n" }], focus: ["security"] });
    expect(critical.summary.highlights.find((h) => h.startsWith("Critical:"))).toContain(` at \`\` ${first}:1 \`\`.`);
  });

  it("quote a tool's message (tsc quotes the PR's string literals) as a code span", () => {
    const d = {
      file: "src/a.ts",
      line: 1,
      severity: "error",
      source: "tsc",
      code: "TS2322",
      message: `Type '"${HOSTILE}"' is not assignable to type 'number'.`,
    };
    const [c] = toolComments([d] as never, [{ path: "src/a.ts", status: "added", added: [1], removed: [] }] as never);
    expect(c!.message).toBe(`tsc: \`\` Type '"${HOSTILE}"' is not assignable to type 'number'. \`\``);
  });

  it("quote a mutant's test command (it may name the PR's files) as a code span", () => {
    const m = { ...strength.mutation!.survived[0]!, cmd: "npx vitest related 'src/a`@octo-org/owners`.ts'", tests: undefined };
    const [f] = strengthFindings({ ...strength, mutation: { ...strength.mutation!, survived: [m] } } as TestStrength);
    expect(f!.message).toContain("(`` npx vitest related 'src/a`@octo-org/owners`.ts' ``)");
  });
});
