import { describe, expect, it } from "vitest";
import { reviewPr } from "../../../src/review/review.js";
import type { Category } from "../../../src/review/types.js";

/** Reviews one new file and returns [line, rule] pairs of the given category. */
async function findings(path: string, code: string, category: Category): Promise<Array<[number, string]>> {
  const r = await reviewPr({ files: [{ path, content: code }], focus: [category] });
  return r.comments.map((c) => [c.line, c.rule]);
}

const lines = (...l: string[]): string => `${l.join("\n")}\n`;

describe("type-safety", () => {
  it.each([
    ["parameter", "function f(x: any) {}", [[1, "ts-explicit-any"]]],
    ["optional property", "interface A { x?: any }", [[1, "ts-explicit-any"]]],
    ["cast", "const y = x as any;", [[1, "ts-explicit-any"]]],
    ["generic argument", "const m: Map<string, any> = new Map();", [[1, "ts-explicit-any"]]],
    ["array", "let xs: any[] = [];", [[1, "ts-explicit-any"]]],
    ["union", "type T = string | any;", [[1, "ts-explicit-any"]]],
    ["alias", "type T = any;", [[1, "ts-explicit-any"]]],
    ["return of a function type", "type F = () => any;", [[1, "ts-explicit-any"]]],
    ["string", 'const s = "any";', []],
    ["comment", "// takes any value", []],
    ["identifier prefix", "const anything = anyOf(x);", []],
    ["zod", "const s = z.any();", []],
    ["keyof any", "type K = keyof any;", []],
    ["distributive conditional", "type D<T> = T extends any ? T[] : never;", []],
    ["object key", "const o = { any: 1, b: 2 };", []],
    ["ternary", "const v = ok ? some : other;", []],
    ["eslint-allowed", "// eslint-disable-next-line @typescript-eslint/no-explicit-any\nlet x: any;", []],
  ] as const)("explicit any: %s", async (_name, code, expected) => {
    expect(await findings("src/a.ts", code, "type-safety")).toEqual(expected);
  });

  it.each([
    ["lookup, then indexed", "const n = map.get(k)![0];", [[1, "ts-non-null-assertion"]]],
    ["lookup returned (no dereference)", "function f(k: string) { return map.get(k)!; }", [[1, "ts-non-null-assertion"]]],
    ["lookup passed on", "use(xs.find(isOk)!);", [[1, "ts-non-null-assertion"]]],
    ["a field (deliberate state the type cannot express)", "const n = user!.name;", []],
    ["a variable passed on", "use(maybe!);", []],
    ["indexed access idiom (noUncheckedIndexedAccess)", "const a = xs[i]!; const b = ys[j]!.name;", []],
    ["strict inequality", "if (a!== b && c !== d) {}", []],
    ["loose inequality", "if (a != b) {}", []],
    ["negation", "if (!a) {}", []],
    ["definite assignment", "class A { name!: string; }", []],
    ["string", 'const s = "hi!.there";', []],
  ] as const)("non-null: %s", async (_name, code, expected) => {
    expect(await findings("src/a.ts", code, "type-safety")).toEqual(expected);
  });

  it("JSX text with '!' is not a non-null assertion", async () => {
    expect(await findings("src/a.tsx", lines("const A = () => (", "  <p>Hello world!</p>", ");"), "type-safety")).toEqual([]);
  });

  it("@ts-ignore and @ts-nocheck, in TS and JS; @ts-expect-error is the suggested fix", async () => {
    expect(await findings("src/a.ts", lines("// @ts-ignore", "f();", "// @ts-expect-error: wrong lib types", "g();"), "type-safety")).toEqual([
      [1, "ts-ignore"],
    ]);
    expect(await findings("src/a.js", "// @ts-nocheck\n", "type-safety")).toEqual([[1, "ts-ignore"]]);
    expect(await findings("src/a.ts", 'const s = "// @ts-ignore";', "type-safety")).toEqual([]);
  });

  it("only TypeScript gets type findings; tests may use any", async () => {
    expect(await findings("src/a.py", "def f(x: any): pass", "type-safety")).toEqual([]);
    expect(await findings("src/a.test.ts", "const x = y as any;", "type-safety")).toEqual([]);
  });
});

describe("logging and todos", () => {
  it("console.log / debug / table in source, not error or warn, not in tests, scripts or strings", async () => {
    const code = lines(
      "console.log(a);",
      "console.debug(b);",
      "console.error(c);",
      "console.warn(d);",
      'const s = "console.log(x)";',
      "logger.log(e);",
      "console.table(rows);",
    );
    expect(await findings("src/a.ts", code, "logging")).toEqual([
      [1, "console-log"],
      [2, "console-log"],
      [7, "console-log"],
    ]);
    expect(await findings("src/a.test.ts", code, "logging")).toEqual([]);
    expect(await findings("scripts/release.mjs", code, "logging")).toEqual([]);
    expect(await findings("src/cli/main.ts", code, "logging")).toEqual([]);
    expect(await findings("src/a.py", "print(x)\n", "logging")).toEqual([]);
  });

  it("markers in comments only, upper case, standing alone", async () => {
    const code = lines(
      "// TODO: later",
      "# not a comment in TS",
      'const s = "TODO";',
      "// a todo list",
      "/* FIXME(bob): x */",
      "// XXX",
      "// TODO-free",
      "const todoList = [];",
    );
    expect(await findings("src/a.ts", code, "todos")).toEqual([
      [1, "todo-comment"],
      [5, "fixme-comment"],
      [6, "fixme-comment"],
    ]);
    expect(await findings("app/a.py", lines("x = 1  # TODO: y", 's = "# TODO"'), "todos")).toEqual([[1, "todo-comment"]]);
    expect(await findings("README.md", "TODO: write docs\n", "todos")).toEqual([]);
  });
});

describe("code-quality", () => {
  it("magic numbers in comparisons and arithmetic; not const declarations, obvious values, status codes, time, size or bit constants", async () => {
    const code = lines(
      "const MAX = 42;",
      "if (retries > 6) stop();",
      "cost = price * 1.21;",
      "if (hours > 23 || bytes / 1024 > 4 || bits / 8 > n || mask & 0xff) {}",
      "for (let i = 0; i < n; i++) {}",
      "if (x.length === 1 || y > 100 || z !== -1) {}",
      "if (res.status === 404) {}",
      "const half = w / 2;",
      "const list = [3, 5, 8];",
      "f(7);",
    );
    expect(await findings("src/a.ts", code, "code-quality")).toEqual([
      [2, "magic-number"],
      [3, "magic-number"],
    ]);
  });

  it("no long-line finding when the project sets no limit (files and diffs carry none)", async () => {
    const long = `const total = ${Array.from({ length: 30 }, (_, i) => `v${i}`).join(" + ")};`;
    expect(await findings("src/a.ts", lines(long, "ok();"), "code-quality")).toEqual([]);
  });

  it("nesting deeper than 4 control levels, once per function", async () => {
    const deep = lines(
      "function f(a: A) {",
      "  if (a.x) {",
      "    for (const b of a.bs) {",
      "      while (b.c) {",
      "        if (b.d) {",
      "          if (b.e) {",
      "            if (b.f) {",
      "              g();",
      "            }",
      "          }",
      "          try {",
      "            h();",
      "          } catch (err) {",
      "            throw err;",
      "          }",
      "        }",
      "      }",
      "    }",
      "  }",
      "}",
    );
    expect(await findings("src/a.ts", deep, "code-quality")).toEqual([[6, "deep-nesting"]]);
    const shallow = lines(
      "function f() {",
      "  if (a) {",
      "    for (const x of y) {",
      "      if (x) {",
      "        g(() => { if (z) { h(); } });",
      "      }",
      "    }",
      "  }",
      "}",
    );
    expect(await findings("src/a.ts", shallow, "code-quality")).toEqual([]);
  });

  it("functions longer than 80 lines written by this change", async () => {
    const body = Array.from({ length: 85 }, (_, i) => `  step${i}();`);
    const code = lines("export function big() {", ...body, "}", "", "export const small = () => {", "  return 1;", "};");
    expect(await findings("src/a.ts", code, "code-quality")).toEqual([[1, "long-function"]]);
    // An existing long function with one changed line is not reported.
    const before = code;
    const after = code.replace("  step40();", "  step40(true);");
    const r = await reviewPr({ files: [{ path: "src/a.ts", content: after, originalContent: before }], focus: ["code-quality"] });
    expect(r.comments).toEqual([]);
  });

  it("duplicated blocks within the change, across files, but not short or trivial repeats", async () => {
    const block = [
      "const user = await repo.findUser(id);",
      "if (!user) throw new NotFound(id);",
      "const orders = await repo.ordersOf(user);",
      "const total = orders.reduce(sum, 0);",
      "audit.record(user, total);",
      "return { user, total };",
    ];
    const r = await reviewPr({
      files: [
        { path: "src/a.ts", content: lines("async function a(id: string) {", ...block.map((l) => `  ${l}`), "}") },
        { path: "src/b.ts", content: lines("async function b(id: string) {", ...block.map((l) => `  ${l}`), "}", "", "function c() {", "  }", "  }", "  }") },
      ],
      focus: ["code-quality"],
    });
    expect(r.comments.map((c) => [c.file, c.line, c.rule, c.message])).toEqual([
      ["src/b.ts", 2, "duplicate-block", "This block repeats the code added at `src/a.ts:2`."],
    ]);
  });
});

describe("error-handling", () => {
  it("an await without try/catch is not a finding: errors propagate to the caller on purpose", async () => {
    const code = lines(
      "export async function load(u: string) {",
      "  const r = await fetch(u);",
      "  return r.json();",
      "}",
      "export async function mw(ctx: Ctx, next: Next) {",
      "  await next();",
      "}",
    );
    expect(await findings("src/a.ts", code, "error-handling")).toEqual([]);
    // In a diff hunk that does not show the function's start, nothing is claimed.
    const diff = ["--- a/src/a.ts", "+++ b/src/a.ts", "@@ -40,3 +40,4 @@", "   const a = 1;", "+  const r = await fetch(u);", "   return r;", " }", ""].join(
      "\n",
    );
    expect((await reviewPr({ diff, focus: ["error-handling"] })).comments).toEqual([]);
  });

  it("wrapped handlers and .catch chains are handled", async () => {
    const code = lines(
      'router.get("/a", asyncHandler(async (req, res) => {',
      "  res.json(await load());",
      "}));",
      "async function b() {",
      "  await save().catch(report);",
      "}",
    );
    expect(await findings("src/a.ts", code, "error-handling")).toEqual([]);
  });
});

describe("security edge cases", () => {
  it.each([
    ["eval in a string", 'const s = "eval(x)";', []],
    ["method named eval", "redis.eval(script, 0);", []],
    ["RegExp#exec with a template", "const m = re.exec(`${a}-b`);", []],
    ["exec with a constant", 'exec("git status");', []],
    ["exec with concatenation", 'exec("rm -rf " + dir);', [[1, "command-injection"]]],
    ["child_process member call", "cp.execSync(`tar xf ${file}`);", [[1, "command-injection"]]],
    ["innerHTML from a constant", 'el.innerHTML = "<b>hi</b>";', []],
    ["innerHTML sanitized", "el.innerHTML = DOMPurify.sanitize(html);", []],
    ["insertAdjacentHTML dynamic", 'el.insertAdjacentHTML("beforeend", row);', [[1, "xss-html"]]],
    ["sendFile with root", "res.sendFile(req.params.name, { root: PUBLIC });", []],
    ["path checked after join", "const p = path.join(ROOT, req.query.f);\nif (!p.startsWith(ROOT)) throw new Error();", []],
    ["tainted variable", "const { file } = req.query;\nfs.readFileSync(file);", [[2, "path-traversal"]]],
    ["weak cipher mode", 'crypto.createCipheriv("aes-128-ecb", key, null);', [[1, "weak-cipher"]]],
    ["Math.random for a jitter", "const delay = base + Math.random() * spread;", []],
    ["Math.random for a password", "const password = Math.random().toString(36);", [[1, "insecure-random"]]],
    ["TLS option true", "const a = new Agent({ rejectUnauthorized: true });", []],
    ["TLS in a comment", "// never set rejectUnauthorized: false", []],
  ] as const)("%s", async (_name, code, expected) => {
    expect(await findings("src/server/a.js", `${code}\n`, "security")).toEqual(expected);
  });

  it("secret messages never repeat the secret", async () => {
    const key = ["AKIA", "ZZZZYYYYXXXXWWWW"].join("");
    const r = await reviewPr({ files: [{ path: "src/a.ts", content: `const k = "${key}";\n` }], format: "sarif" });
    expect(r.comments.map((c) => c.rule)).toEqual(["hardcoded-secret"]);
    expect(JSON.stringify(r)).not.toContain(key);
  });

  it("security findings are not reported in tests (except secrets)", async () => {
    expect(await findings("src/a.test.js", 'eval("1");\nconst t = "' + ["ghp", "a".repeat(36)].join("_") + '";\n', "security")).toEqual([
      [2, "hardcoded-secret"],
    ]);
  });
});

describe("async callbacks", () => {
  it("forEach does not wait for an async callback; event handlers, map and then are not reported", async () => {
    const code = lines(
      'emitter.on("job", async (job) => {',
      "  await run(job);",
      "});",
      "const results = await Promise.all(items.map(async (item) => {",
      "  return await load(item);",
      "}));",
      "items.forEach(async (item) => {",
      "  await load(item);",
      "});",
    );
    const r = await reviewPr({ files: [{ path: "src/a.ts", content: code }], focus: ["error-handling"] });
    expect(r.comments.map((c) => [c.line, c.rule, c.severity])).toEqual([[7, "floating-promise", "warning"]]);
  });
});

describe("settings named in messages", () => {
  it("TLS settings are findings where they are set, not where a string merely names them", async () => {
    const code = lines(
      'process.env["NODE_TLS_REJECT_UNAUTHORIZED"] = "0";',
      'throw new Error("do not set NODE_TLS_REJECT_UNAUTHORIZED=0");',
      'execSync("git -c http.sslVerify=false fetch");',
    );
    expect(await findings("src/a.js", code, "security")).toEqual([
      [1, "tls-disabled"],
      [3, "tls-disabled"],
    ]);
    expect(await findings("deploy/.env", "NODE_TLS_REJECT_UNAUTHORIZED=0\n", "security")).toEqual([[1, "tls-disabled"]]);
  });
});
