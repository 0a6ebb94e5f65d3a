import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { chooseMutants, isArid } from "../../../../src/evaluate/mutate/choose.js";
import { checkedMutants, MAX_PY_SOURCE, pythonMutants } from "../../../../src/evaluate/mutate/python-mutants.js";
import { applyMutant } from "../../../../src/evaluate/mutate/run-mutants.js";

const hasPython = (() => {
  try {
    execFileSync("python3", ["-c", "import ast"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** Every mutant of each asked line, as the line reads with it in place: `line: mutator: text`. */
async function mutated(content: string, lines: number[]): Promise<string[]> {
  const r = await pythonMutants(new Map([["m.py", { content, lines }]]));
  return r.mutants.map((m) => {
    const l = m.location.start.line;
    return `${l + 1}: ${m.mutatorName}: ${applyMutant(content, m).split("\n")[l]!.trim()}`;
  });
}

/** The one mutant chooseMutants keeps on each line, as the line reads with it. */
async function chosen(content: string, lines: number[]): Promise<string[]> {
  const r = await pythonMutants(new Map([["m.py", { content, lines }]]));
  return chooseMutants("m.py", content, r.mutants, lines).map((c) => {
    const m = r.mutants.find((x) => x.id === c.id)!;
    return `${c.line}: ${c.mutator}: ${applyMutant(content, m).split("\n")[c.line - 1]!.trim()}`;
  });
}

describe.skipIf(!hasPython)("Python mutants from Python's own ast", () => {
  it("makes Stryker's kinds, by position, and choose.ts keeps the most telling one per line", async () => {
    const src = [
      "def f(x, lo, hi, xs):",
      "    if x < lo and not xs:",
      "        return lo",
      "    total = x * 2 + -lo",
      "    total += 1",
      "    while total > 100:",
      "        total //= 2",
      "    evens = [a for a in xs if a % 2 == 0]",
      "    d = {1: [1, 2]}",
      "    ok = x is None or x in d",
      '    name = "low" if x >= hi else ""',
      "    flag = True",
      "    return total",
      "",
    ].join("\n");
    expect(await chosen(src, [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])).toEqual([
      "2: ConditionalExpression: if False:",
      "3: ReturnValue: return None",
      "4: ArithmeticOperator: total = x * 2 - -lo",
      "5: AssignmentOperator: total -= 1",
      "6: ConditionalExpression: while False:",
      "7: AssignmentOperator: total *= 2",
      "8: ConditionalExpression: evens = [a for a in xs if True]",
      "9: ArrayDeclaration: d = {1: []}",
      "10: ConditionalExpression: ok = True",
      '11: ConditionalExpression: name = "low" if True else ""',
      "12: BooleanLiteral: flag = False",
      "13: ReturnValue: return None",
    ]);
    // An `if`'s condition → False first: the case it handles undone.
    expect(await mutated(src, [2])).toEqual([
      "2: ConditionalExpression: if False:",
      "2: ConditionalExpression: if True:",
      // In an `and`, only `True` for a part: `False` is the whole condition's.
      "2: ConditionalExpression: if True and not xs:",
      "2: EqualityOperator: if x <= lo and not xs:",
    ]);
    const rest = await mutated(src, [4, 11]);
    expect(rest).toContain("4: UnaryOperator: total = x * 2 + +lo");
    expect(rest).toContain("4: ArithmeticOperator: total = x / 2 + -lo");
    expect(rest).toContain('11: EqualityOperator: name = "low" if x > hi else ""');
    const more = await mutated(
      ["def g(a, b, c):", "    return not a", '    s = ""', "    t = a not in b", "    return ~c", "    u = a is None", "    v = a or b", ""].join("\n"),
      [2, 3, 4, 5, 6, 7],
    );
    expect(more).toEqual(
      expect.arrayContaining([
        "2: BooleanLiteral: return a",
        '3: StringLiteral: s = "Stryker was here!"',
        "4: EqualityOperator: t = a in b",
        "5: UnaryOperator: return c",
        "6: EqualityOperator: u = a is not None",
        "7: LogicalOperator: v = a and b",
      ]),
    );
  });

  it("places a mutant by the line's UTF-16 columns: non-ASCII and astral text before it, a BOM, CRLF line ends", async () => {
    const src = '\uFEFFs = "é😀" if a < b else "ö"\r\nt = "日本語😀😀" + str(a); u = a - b\r\n';
    const r = await pythonMutants(new Map([["m.py", { content: src, lines: [1, 2] }]]));
    const files = r.mutants.map((m) => applyMutant(src, m));
    const line2 = 't = "日本語😀😀" + str(a); u = a - b\r\n';
    expect(files).toContain(`\uFEFFs = "é😀" if True else "ö"\r\n${line2}`);
    expect(files).toContain(`\uFEFFs = "é😀" if a <= b else "ö"\r\n${line2}`);
    expect(files).toContain('\uFEFFs = "é😀" if a < b else "ö"\r\nt = "日本語😀😀" + str(a); u = a + b\r\n');
    expect(files).toContain('\uFEFFs = "é😀" if a < b else "ö"\r\nt = "" + str(a); u = a - b\r\n');
    // A string added to a string is not arithmetic: the one `+` → `-` is of `a - b`.
    expect(r.mutants.filter((m) => m.mutatorName === "ArithmeticOperator")).toHaveLength(1);
  });

  it("leaves out docstrings, f-string internals, annotations, __all__, decorators, logging calls and error messages", async () => {
    const src = [
      '"""Module."""', // 1
      "import logging", // 2
      "from x import y", // 3
      '__all__ = ["f", "g"]', // 4
      "log = logging.getLogger(__name__)", // 5
      "@cache(size=[1, 2])", // 6
      'def f(x: "int" = 0) -> list[int]:', // 7
      '    """Doc."""', // 8
      '    log.debug("x is %s", x == 1)', // 9
      '    msg = f"{x + 1} and {x == 2}"', // 10
      '    raise ValueError("x " + "is bad")', // 11
      "    # if x < 1: return", // 12
      '    assert x, "needs x"', // 13
      "",
    ].join("\n");
    const all = await mutated(src, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(all).toEqual(['10: StringLiteral: msg = ""', '13: ConditionalExpression: assert True, "needs x"']);
    // Nor is a string added to an f-string arithmetic.
    expect(await mutated('def g(a, b):\n    return f"{a}" + b\n', [2])).toEqual(["2: ReturnValue: return None", '2: StringLiteral: return "" + b']);
    expect(isArid("from os import path", true)).toBe(true);
    expect(isArid("# x < 1", true)).toBe(true);
    expect(isArid("logger.warning('x %s', y > 1)", true)).toBe(true);
    expect(isArid("#count = 0;")).toBe(false); // a JavaScript private field
    expect(isArid("return fromage(x) + 1", true)).toBe(false);
  });

  it("mutates a changed line that continues a statement that ran (coverage.py counts only its first line)", async () => {
    const src = [
      "def f(a, b):",
      "    if (",
      "        a < b",
      "        and b > 0",
      "    ):",
      "        return g(",
      "            a,",
      '            "s",',
      "        )",
      "",
    ].join("\n");
    const ran = [2, 6]; // coverage.py's statements of the change
    const more = [3, 4, 5, 7, 8, 9];
    const r = await pythonMutants(new Map([["m.py", { content: src, lines: ran, more }]]));
    const lines = [...ran, ...more];
    const kept = chooseMutants("m.py", src, r.mutants, lines).map((c) => `${c.line}: ${c.mutator}`);
    expect(kept).toEqual(["3: ConditionalExpression", "4: ConditionalExpression", "6: ReturnValue", "8: StringLiteral"]);
    expect(await mutated(src, ran)).toEqual(["6: ReturnValue: return None"]);
    // A changed line of a statement that did not run is not mutated.
    const notRan = await pythonMutants(new Map([["m.py", { content: src, lines: [6], more }]]));
    expect(notRan.mutants.map((m) => m.location.start.line + 1).filter((l) => l < 6)).toEqual([]);
  });

  it("does not take a match statement's cases for its continuation: a case's body coverage.py says did not run gets no mutant", async () => {
    const src = ["def f(x):", "    match x:", "        case 1:", "            return x + 1", "        case _:", "            return x - 1", ""].join("\n");
    // coverage.py of f(2): 2, 3, 5, 6 ran, 4 (the first case's body) did not.
    const r = await pythonMutants(new Map([["m.py", { content: src, lines: [2, 3, 5, 6], more: [4] }]]));
    expect(r.mutants.map((m) => m.location.start.line + 1)).not.toContain(4);
    expect(r.mutants.map((m) => m.location.start.line + 1)).toContain(6);
    // A match's subject spread over lines is its continuation, up to the first case.
    const spread = ["def f(x):", "    match (", "        x + 1", "    ):", "        case 2:", "            return 0", ""].join("\n");
    const s = await pythonMutants(new Map([["m.py", { content: spread, lines: [2, 5, 6], more: [3, 4] }]]));
    expect(s.mutants.map((m) => `${m.location.start.line + 1}: ${m.mutatorName}`)).toContain("3: ArithmeticOperator");
  });

  it("keeps the mutants of a line black starts with its operator (`* qty`, `// 2`): JavaScript's comment rules are not Python's", async () => {
    const src = [
      "def f(price, qty, lo, hi):",
      "    total = (",
      "        price",
      "        * qty",
      "        // 2",
      "    )",
      "    interface = lo + hi",
      "    return total",
      "",
    ].join("\n");
    expect(await chosen(src, [4, 5, 7])).toEqual(["4: ArithmeticOperator: / qty", "5: ArithmeticOperator: * 2", "7: ArithmeticOperator: interface = lo - hi"]);
    expect(isArid("import os", true)).toBe(true);
  });

  it("keeps the name a condition binds (`:=`): the condition's value is replaced, not the binding, whose loss any run would catch", async () => {
    const src = ["def f(xs, s):", "    ys = [y for x in xs if (y := x - 1)]", "    return n if (n := len(s)) else ys", ""].join("\n");
    expect(await chosen(src, [2, 3])).toEqual([
      "2: ConditionalExpression: ys = [y for x in xs if (y := True)]",
      "3: ConditionalExpression: return n if (n := True) else ys",
    ]);
    const all = await mutated(src, [2, 3]);
    expect(all.filter((m) => m.includes("ConditionalExpression") && !m.includes(":="))).toEqual([]);
  });

  it("drops a mutant that does not parse: `or` glued to a hex literal becomes `0xfand`", async () => {
    const src = "def f(y):\n    return 0xfor y\n";
    const all = await mutated(src, [2]);
    expect(all).toEqual(["2: ConditionalExpression: return True", "2: ConditionalExpression: return False", "2: ReturnValue: return None"]);
  });

  it("skips a file Python cannot parse, one too large and one not UTF-8, each with a note", async () => {
    const r = await pythonMutants(
      new Map([
        ["py2.py", { content: 'print "hi"\n', lines: [1] }],
        ["big.py", { content: `x = 1\n${"#".repeat(MAX_PY_SOURCE)}\n`, lines: [1] }],
        ["latin.py", { content: 'x = "caf\uFFFD" + y\n', lines: [1] }],
        ["ok.py", { content: "x = a + b\n", lines: [1] }],
      ]),
    );
    expect(r.mutants.map((m) => m.fileName)).toEqual(["ok.py"]);
    expect(r.notes.join("\n")).toMatch(/py2\.py: no mutants were made of it: Python's parser refused it \(SyntaxError, line 1\)/);
    expect(r.notes.join("\n")).toMatch(/big\.py is over 1 MB/);
    expect(r.notes.join("\n")).toMatch(/latin\.py is not UTF-8 text/);
  });

  it("keeps what it made within its budget when the files past it are many and large: they are not parsed after it, and python3 ends in time", async () => {
    const content = `${Array.from({ length: 24_000 }, (_, i) => `x${i} = a < b and c + d if e else "s"`).join("\n")}\n`;
    const lines = Array.from({ length: 24_000 }, (_, i) => i + 1);
    // A small file first, then large ones: the budget (1 s) runs out in the first large one.
    const files = new Map([["f0.py", { content: "x = a < b\n", lines: [1] }]]);
    for (let k = 1; k <= 22; k++) files.set(`f${k}.py`, { content, lines });
    const r = await pythonMutants(files, undefined, 1);
    expect(r.notes.join("\n")).not.toMatch(/did not finish/);
    expect(new Set(r.mutants.map((m) => m.fileName))).toEqual(new Set(["f0.py"]));
    expect(r.notes).toContain("f22.py: the mutants of some lines were not checked within 1 s, and were left out.");
  }, 120_000);

  it("says so when python3 is not on PATH", async () => {
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      const r = await pythonMutants(new Map([["a.py", { content: "x = a + b\n", lines: [1] }]]));
      expect(r.mutants).toEqual([]);
      expect(r.notes).toEqual([expect.stringMatching(/^No Python mutants: python3 is not on PATH .*coverage only\.$/)]);
    } finally {
      process.env.PATH = path;
    }
  });
});

describe("what the Python program printed is checked before a mutant is written", () => {
  const content = 'x = a < b\ns = "😀" + t\n';
  const ok = [0, 6, 0, 7, "EqualityOperator", "<="];
  it("keeps a mutant of an asked line with its columns inside the line, a known mutator and a known replacement", () => {
    expect(checkedMutants("a.py", content, [1], [ok], 0)).toEqual([
      {
        id: "py0.0",
        fileName: "a.py",
        mutatorName: "EqualityOperator",
        replacement: "<=",
        location: { start: { line: 0, column: 6 }, end: { line: 0, column: 7 } },
      },
    ]);
  });
  it("drops the others: a line not asked, a column past the line or inside a surrogate pair, an unknown mutator or replacement", () => {
    const bad = [
      [1, 0, 1, 1, "StringLiteral", '""'], // line 2 was not asked
      [0, 6, 0, 99, "EqualityOperator", "<="], // past the line's end
      [5, 0, 5, 1, "EqualityOperator", "<="], // past the file
      [0, 7, 0, 6, "EqualityOperator", "<="], // end before start
      [0, 6, 0, 7, "Exec", "<="],
      [0, 6, 0, 7, "EqualityOperator", "__import__('os').system('x')"],
      [0, 6, 0, 7, "EqualityOperator"],
      "x",
    ];
    for (const m of bad) expect(checkedMutants("a.py", content, [1], [m], 0), JSON.stringify(m)).toEqual([]);
    expect(checkedMutants("a.py", content, [2], [[1, 6, 1, 6, "StringLiteral", '""']], 0)).toEqual([]); // inside 😀
    expect(checkedMutants("a.py", content, [1], { not: "a list" }, 0)).toEqual([]);
  });
  it("keeps at most a few per asked line", () => {
    expect(checkedMutants("a.py", content, [1], Array(50).fill(ok), 0)).toHaveLength(4);
  });
});
