/**
 * Marks of a test expected to fail, read from a test file's syntax tree (expected-failures.ts says why; it
 * loads this module, and TypeScript's parser with it, only when a step changed a test file to read).
 * A mark split over lines, made through a variable or a computed name is the same mark, and a test's data
 * of the same name (`counts['failing']++`, `const { passes, fails } = summarize(…)`) is none.
 */
import ts from "typescript";
import { parseScript } from "../util/syntax.js";
import { quoted } from "../util/text.js";
import type { ExpectedFailureMark } from "./runners/index.js";

const MAX_LISTED = 5;

/** A test file as the baseline had it and as the step has it ("" where it did not exist). */
export interface FileTexts {
  file: string;
  before: string;
  after: string;
}

/**
 * The marks the step's files have that the baseline's did not (each counted: a second `test.failing` of the same
 * text is the step's), as `"file:line: text"` (the line's text, quoted). Counted across the files, so that a
 * known bug's mark the baseline had, moved to another file, is not the step's.
 */
export function addedMarks(files: FileTexts[], markers: ExpectedFailureMark[]): string[] {
  if (markers.length === 0) return [];
  const had = new Map<string, number>();
  for (const f of files) for (const m of readable(f.file, f.before, markers)) had.set(m.key, (had.get(m.key) ?? 0) + 1);
  const out: string[] = [];
  for (const f of files)
    for (const m of readable(f.file, f.after, markers)) {
      const n = had.get(m.key) ?? 0;
      if (n > 0) had.set(m.key, n - 1);
      else if (!out.includes(m.shown) && out.push(m.shown) >= MAX_LISTED) return out;
    }
  return out;
}

/**
 * The file's marks; a file too deeply nested to read (TypeScript's parser recurses: a literal a thousand levels
 * deep overflows the stack, h27) is a mark of its own, so that it neither hides one nor stops the step.
 */
function readable(file: string, text: string, markers: ExpectedFailureMark[]): Mark[] {
  try {
    return marksIn(file, text, markers);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return [{ key: `${file}:unreadable`, line: 0, shown: quoted(`${file}: too deeply nested to read`, 120) }];
  }
}

export interface Mark {
  /** What stays the same when the file is reformatted: the mark's call without spaces or quote styles. */
  key: string;
  /** 1-based. */
  line: number;
  shown: string;
}

// The runners' test functions, as globals and as their modules' exports (`import { test as t } from 'vitest'`),
// and AVA's usual name for its own. Not what else the modules export (`expect`, `vi`, hooks): no test is marked through them.
const TEST_FUNCTIONS = new Set(["test", "it", "describe", "suite", "ava", "bench"]);
const RUNNER_MODULE = /^(?:ava|vitest|@jest\/globals|bun:test|node:test)$/;
// Modules whose own export is the test function (`const test = require('ava')`); the others' are namespaces.
const TEST_MODULE = /^(?:ava|node:test)$/;
// Chained after a mark, it is still the mark: `test.failing.each([…])(…)`, `test.fails.skipIf(c)(…)`.
const MODIFIERS = new Set(["each", "only", "skip", "concurrent", "sequential", "serial", "for", "skipIf", "runIf", "todo", "shuffle", "cb"]);
// What gives a test function from one (`test.extend(…)`, `test.serial`); a test's other properties (`suite.children`) are data.
const TEST_CHAIN = new Set([...MODIFIERS, "extend", "scoped", "failing", "fails"]);

/** Every mark of a test expected to fail in a test file's text, in source order. */
export function marksIn(file: string, text: string, markers: ExpectedFailureMark[]): Mark[] {
  const sf = text ? parseScript(file, text) : null;
  if (!sf) return [];
  const known = knownNames(sf, markers);
  const out: Mark[] = [];
  const add = (at: ts.Node, key: string) => {
    const line = sf.getLineAndCharacterOfPosition(at.getStart(sf)).line;
    const lineText = sf.text.slice(sf.getLineStarts()[line], sf.getLineStarts()[line + 1] ?? sf.text.length).trim();
    out.push({ key: normal(key), line: line + 1, shown: quoted(`${file}:${line + 1}: ${lineText}`, 120) });
  };
  const visit = (n: ts.Node): void => {
    for (const { word, options } of markers) {
      const site = markAt(n, word, known);
      if (site) add(site, siteKey(sf, site));
      if (options && ts.isCallExpression(n) && marksOptions(n, word, known)) add(n, `${siteKey(sf, n)}{${word}}`);
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

interface Known {
  tests: Set<string>;
  /** A runner module's names (`import * as v from 'vitest'`): `v.test` is a test function. */
  namespaces: Set<string>;
  strings: Map<string, string>;
  /** Variables holding an options object that marks (`const opts = { fails: true }`), by word. */
  options: Map<string, Set<string>>;
}

/**
 * The file's names for test functions (imports from a runner, `const myTest = test.extend(…)`, `const t = test`)
 * and its constants (`const w = 'fai' + 'ling'`), in as many passes as a chain of them needs.
 */
function knownNames(sf: ts.SourceFile, markers: ExpectedFailureMark[]): Known {
  const known: Known = { tests: new Set(TEST_FUNCTIONS), namespaces: new Set(), strings: new Map(), options: new Map() };
  const decls: ts.VariableDeclaration[] = [];
  const collect = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier) && RUNNER_MODULE.test(n.moduleSpecifier.text)) {
      const c = n.importClause;
      if (c?.name) known.tests.add(c.name.text);
      const b = c?.namedBindings;
      if (b && ts.isNamespaceImport(b)) known.namespaces.add(b.name.text);
      if (b && ts.isNamedImports(b)) for (const e of b.elements) if (TEST_FUNCTIONS.has((e.propertyName ?? e.name).text)) known.tests.add(e.name.text);
    }
    if (ts.isVariableDeclaration(n) && n.initializer) decls.push(n);
    n.forEachChild(collect);
  };
  collect(sf);
  for (let pass = 0, grew = true; grew && pass < 8; pass++) {
    grew = false;
    for (const d of decls) {
      const init = d.initializer!;
      if (ts.isObjectBindingPattern(d.name)) {
        // `const { test: t } = require('vitest')`
        if (!isNamespace(init, known)) continue;
        for (const e of d.name.elements) {
          const from = boundKey(e, known);
          if (from && TEST_FUNCTIONS.has(from) && ts.isIdentifier(e.name) && !known.tests.has(e.name.text)) grew = !!known.tests.add(e.name.text);
        }
        continue;
      }
      if (!ts.isIdentifier(d.name)) continue;
      const name = d.name.text;
      if (!known.tests.has(name) && isTestFunction(init, known)) grew = !!known.tests.add(name);
      if (!known.namespaces.has(name) && isNamespace(init, known)) grew = !!known.namespaces.add(name);
      const s = constString(init, known);
      if (s !== undefined && known.strings.get(name) !== s) grew = !!known.strings.set(name, s);
      for (const { word, options } of markers) {
        const has = known.options.get(word) ?? new Set<string>();
        if (options && !has.has(name) && optionsMark(init, word, known)) grew = !!known.options.set(word, has.add(name));
      }
    }
  }
  return known;
}

/**
 * The node that makes `n` a mark of `word`, or undefined: `x.failing(…)` and `x['failing'](…)` (any object: a
 * fixture's test function), `test.failing` read in any way (`const t = test.failing`, `.bind`), `test[k](…)`
 * with a key that cannot be read, `const { failing } = test`, `Reflect.get(test, 'failing')`.
 */
function markAt(n: ts.Node, word: string, known: Known): ts.Node | undefined {
  if (ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n)) {
    if (isAssignment(n.parent) && n.parent.left === n) return undefined; // defining it (AVA's own tests), not using it
    const keys = ts.isPropertyAccessExpression(n) ? [n.name.text] : keysOf(n.argumentExpression, known);
    const called = callOf(n);
    if (keys?.includes(word)) {
      const onTest = isTestFunction(n.expression, known);
      // On an object not known for a test function (a fixture's `check.fails('sum', fn)`), only a call with a test's
      // name and body: `validation.fails()` of a validator (h27), `api.fails("ECONNRESET")` of a fake (h28) are none.
      if (called) return onTest || (isNamed(called) && hasBody(called)) ? called : undefined;
      return onTest ? n : undefined;
    }
    return keys === undefined && called && isTestFunction(n.expression, known) ? called : undefined;
  }
  // `const { failing } = test`, `({ failing: f } = test)`.
  const [target, value] = ts.isVariableDeclaration(n) ? [n.name, n.initializer] : isAssignment(n) ? [n.left, n.right] : [];
  if (target && value && isTestFunction(value, known)) {
    const names = ts.isObjectBindingPattern(target)
      ? target.elements.map((e) => boundKey(e, known))
      : ts.isObjectLiteralExpression(target)
        ? target.properties.map((q) => (q.name ? propertyName(q.name, known) : undefined))
        : [];
    return names.includes(word) ? n : undefined;
  }
  if (ts.isCallExpression(n) && n.arguments.some((a) => isTestFunction(a, known)) && n.arguments.some((a) => constString(a, known) === word)) return n;
  return undefined;
}

/** A call whose first argument is a test's name (a string or a template). */
function isNamed(c: ts.CallExpression): boolean {
  const first = c.arguments[0] && unwrap(c.arguments[0]);
  return first !== undefined && (ts.isStringLiteralLike(first) || ts.isTemplateExpression(first));
}

const hasBody = (c: ts.CallExpression): boolean => c.arguments.some((a) => ts.isFunctionLike(unwrap(a)));

const isAssignment = (n: ts.Node): n is ts.BinaryExpression => ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken;

/** The keys `x[k]` may read: a constant, or the constants a condition chooses between; undefined when one is unknown. */
function keysOf(e: ts.Expression, known: Known): string[] | undefined {
  const u = unwrap(e);
  if (ts.isConditionalExpression(u)) {
    const [a, b] = [keysOf(u.whenTrue, known), keysOf(u.whenFalse, known)];
    return a && b ? [...a, ...b] : undefined;
  }
  const s = constString(u, known);
  return s === undefined ? undefined : [s];
}

/**
 * The call a property read is made for: `test.failing(…)`, through modifiers (`test.failing.each([1])(…)`) and
 * parentheses; undefined when the value is only read (`expect(stats.failing)`).
 */
function callOf(n: ts.Expression): ts.CallExpression | undefined {
  let cur: ts.Node = n;
  for (;;) {
    const p = cur.parent;
    if (!p) return undefined;
    if ((ts.isParenthesizedExpression(p) || ts.isNonNullExpression(p) || ts.isAsExpression(p)) && p.expression === cur) cur = p;
    else if (ts.isCallExpression(p) && p.expression === cur) return outermostCall(p);
    else if (ts.isPropertyAccessExpression(p) && p.expression === cur && MODIFIERS.has(p.name.text)) cur = p;
    else return undefined;
  }
}

/** `test.failing.each([1])('x', fn)`: the call whose arguments are the test's, not the table's. */
function outermostCall(c: ts.CallExpression): ts.CallExpression {
  let cur = c;
  while (ts.isCallExpression(cur.parent) && cur.parent.expression === cur) cur = cur.parent;
  return cur;
}

/**
 * Whether a test call carries options that mark it (`test('x', { fails: true }, fn)`, `{ fails }`, an object
 * spread into them or held in a variable, `Object.assign({}, { fails: true })`): an argument after the first
 * of a call to a test function, or of a call with a test's name and body (`myTest('x', { fails: true }, fn)`;
 * `summarize('x', { fails: 1 })` is data).
 */
function marksOptions(c: ts.CallExpression, word: string, known: Known): boolean {
  const named = isNamed(c) && hasBody(c);
  return (named || isTestFunction(c.expression, known)) && c.arguments.slice(1).some((a) => optionsMark(a, word, known));
}

/** An expression holding options that mark: searched through, but not into functions (a test's body is its own). */
function optionsMark(e: ts.Node, word: string, known: Known): boolean {
  if (ts.isFunctionLike(e)) return false;
  if (ts.isIdentifier(e)) return known.options.get(word)?.has(e.text) ?? false;
  if (ts.isObjectLiteralExpression(e))
    for (const p of e.properties) {
      if (ts.isShorthandPropertyAssignment(p) && p.name.text === word) return true;
      if (ts.isPropertyAssignment(p) && propertyName(p.name, known) === word && !isFalse(p.initializer)) return true;
    }
  return ts.forEachChild(e, (c) => optionsMark(c, word, known) || undefined) ?? false;
}

/** A value that turns the option off: `false`, `0`, `''`, `null`, `undefined`, `void 0`, `!1`. */
function isFalse(e: ts.Expression): boolean {
  const u = unwrap(e);
  if (u.kind === ts.SyntaxKind.FalseKeyword || u.kind === ts.SyntaxKind.NullKeyword || ts.isVoidExpression(u)) return true;
  if (ts.isIdentifier(u)) return u.text === "undefined";
  if (ts.isNumericLiteral(u)) return Number(u.text) === 0;
  if (ts.isStringLiteralLike(u)) return u.text === "";
  if (ts.isPrefixUnaryExpression(u) && u.operator === ts.SyntaxKind.ExclamationToken) {
    const o = unwrap(u.operand);
    return o.kind === ts.SyntaxKind.TrueKeyword || (ts.isNumericLiteral(o) && Number(o.text) !== 0) || (ts.isStringLiteralLike(o) && o.text !== "");
  }
  return false;
}

/**
 * A test function: a known name, `require('ava')`, `v.test` of a runner's module, or what a test function's
 * modifiers give (`test.extend(…)`, `test.skip`, `test.each(rows)`); not its other properties nor what a call
 * of it returns (`test('x', fn)`).
 */
function isTestFunction(e: ts.Expression, known: Known): boolean {
  let x = unwrap(e);
  for (;;) {
    if (ts.isPropertyAccessExpression(x) && isNamespace(x.expression, known) && TEST_FUNCTIONS.has(x.name.text)) return true;
    if (ts.isPropertyAccessExpression(x) && TEST_CHAIN.has(x.name.text)) x = unwrap(x.expression);
    else if (ts.isElementAccessExpression(x) && (keysOf(x.argumentExpression, known)?.every((k) => TEST_CHAIN.has(k)) ?? true)) x = unwrap(x.expression);
    else if (ts.isAwaitExpression(x)) x = unwrap(x.expression);
    else if (ts.isCallExpression(x) && !ts.isIdentifier(unwrap(x.expression)) && !isModuleLoad(x, RUNNER_MODULE)) x = unwrap(x.expression);
    else break;
  }
  return ts.isIdentifier(x) ? known.tests.has(x.text) : isModuleLoad(x, TEST_MODULE);
}

/** A runner module's names: `import * as v from 'vitest'`, `require('vitest')`, `await import('vitest')`. */
function isNamespace(e: ts.Expression, known: Known): boolean {
  let x = unwrap(e);
  if (ts.isAwaitExpression(x)) x = unwrap(x.expression);
  return ts.isIdentifier(x) ? known.namespaces.has(x.text) : isModuleLoad(x, RUNNER_MODULE);
}

/** `require('m')` or `import('m')` of a module `which` names. */
function isModuleLoad(e: ts.Expression, which: RegExp): boolean {
  if (!ts.isCallExpression(e) || e.arguments.length === 0) return false;
  const loads = e.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(e.expression) && e.expression.text === "require");
  const m = unwrap(e.arguments[0]!);
  return loads && ts.isStringLiteralLike(m) && which.test(m.text);
}

/** A property's name where it is a constant (`fails`, `'fails'`, `['fai' + 'ls']`). */
function propertyName(n: ts.PropertyName, known: Known): string | undefined {
  if (ts.isIdentifier(n) || ts.isStringLiteralLike(n) || ts.isNumericLiteral(n)) return n.text;
  return ts.isComputedPropertyName(n) ? constString(n.expression, known) : undefined;
}

/** The property a destructured name reads: `failing` of `{ failing }` and of `{ failing: f }`. */
const boundKey = (e: ts.BindingElement, known: Known): string | undefined =>
  e.propertyName ? propertyName(e.propertyName, known) : ts.isIdentifier(e.name) ? e.name.text : undefined;

/** The string an expression always is: literals, templates and `+` of them, and the file's variables holding one. */
function constString(e: ts.Expression, known: Known, depth = 0): string | undefined {
  const u = unwrap(e);
  if (depth > 20) return undefined;
  if (ts.isStringLiteralLike(u)) return u.text;
  if (ts.isIdentifier(u)) return known.strings.get(u.text);
  if (ts.isTemplateExpression(u)) {
    let s = u.head.text;
    for (const span of u.templateSpans) {
      const v = constString(span.expression, known, depth + 1);
      if (v === undefined) return undefined;
      s += v + span.literal.text;
    }
    return s;
  }
  if (ts.isBinaryExpression(u) && u.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const [a, b] = [constString(u.left, known, depth + 1), constString(u.right, known, depth + 1)];
    return a === undefined || b === undefined ? undefined : a + b;
  }
  return undefined;
}

function unwrap(e: ts.Expression): ts.Expression {
  let x = e;
  while (ts.isParenthesizedExpression(x) || ts.isNonNullExpression(x) || ts.isAsExpression(x) || ts.isSatisfiesExpression(x) || ts.isTypeAssertionExpression(x))
    x = x.expression;
  return x;
}

/** A mark's identity: its call and the test's name (`test.failing('adds'`), or the declaration that makes it. */
function siteKey(sf: ts.SourceFile, n: ts.Node): string {
  if (ts.isCallExpression(n)) return `${n.expression.getText(sf)}(${n.arguments[0]?.getText(sf).slice(0, 200) ?? ""}`;
  return n.getText(sf).slice(0, 300);
}

const normal = (s: string): string => s.replace(/\s+/g, "").replace(/["`]/g, "'");
