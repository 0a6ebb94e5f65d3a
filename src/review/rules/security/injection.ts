import { hasTree } from "../../ast/parse.js";
import type { FileContext, LineView } from "../../context.js";
import { type Masked, type StringLit, stringsStartingIn } from "../../lex.js";
import type { Finding } from "../../types.js";
import { finding, RULES } from "../catalog.js";
import { concatIsDynamic, concatOperands, isSafeInterpolation, offsetOf, stringStartingAt } from "./util.js";

/**
 * Injection findings: code evaluation (CWE-95), shell commands (CWE-78), SQL (CWE-89), HTML
 * (CWE-79) and file paths (CWE-22). Each needs a dynamic part: a constant command, query or HTML
 * string is not a finding, a tagged template (sql`...`) is parameterised, a sanitizer call is trusted.
 */

/**
 * Text that starts like a SQL statement. Upper-case keywords are SQL by convention; lower-case ones
 * must also show SQL structure (`select * from t`, `... where ...`), so UI text such as
 * "Select a file from the list" is not mistaken for a query.
 */
const SQL_UPPER =
  /^\s*(?:SELECT\s[\s\S]*\bFROM\b|INSERT\s+INTO\s|UPDATE\s+\S+\s+SET\s|DELETE\s+FROM\s|REPLACE\s+INTO\s|MERGE\s+INTO\s|(?:DROP|ALTER|CREATE|TRUNCATE)\s+TABLE\s|WITH\s+\w+\s+AS\s*\()/;
const SQL_LOWER =
  /^\s*(?:select\s+(?:\*|[\w.]+(?:\s*,\s*[\w.]+)*)\s+from\s+[\w."`[\]]+|insert\s+into\s+[\w."`[\]]+|update\s+[\w."`[\]]+\s+set\s+\w+\s*=|delete\s+from\s+[\w."`[\]]+)/i;
const SQL_CLAUSE = /\b(?:where|values|set|join|order\s+by|group\s+by|limit)\b|=/i;

export function looksLikeSql(text: string): boolean {
  return SQL_UPPER.test(text) || (SQL_LOWER.test(text) && SQL_CLAUSE.test(text.replace(/^\s*\w+\s+/, "")));
}

/**
 * Whether SQL text preceding a spliced value puts it where an identifier goes (table after FROM /
 * JOIN / INTO / UPDATE / TABLE, schema-qualified names): table names come from code far more often
 * than from users, and reporting them would drown the value splices that are the real injections.
 */
function identifierPosition(sqlBefore: string): boolean {
  return /(?:\bFROM|\bJOIN|\bINTO|\bUPDATE|\bTABLE|\.)\s*["`]?$/i.test(sqlBefore);
}

/** Whether a template / f-string splices a non-constant value into a value position. */
function interpolatesValue(lit: StringLit, sqlBefore: string): boolean {
  const open = lit.quote === "`" ? "${" : "{";
  let rest = lit.value;
  let before = sqlBefore;
  for (const expr of lit.interpolations) {
    const at = rest.indexOf(open + expr);
    if (at < 0) return true;
    before += rest.slice(0, at);
    if (!isSafeInterpolation(expr) && !identifierPosition(before)) return true;
    before += "?";
    rest = rest.slice(at + open.length + expr.length + 1);
  }
  return false;
}

/** SQL with a non-constant value spliced into a value position (by template, concatenation or formatting). */
function sqlIsDynamic(lit: StringLit, masked: Masked, syntax: string): boolean {
  if (lit.quote === "`" && lit.prefix !== "") return false; // tagged template (sql`...`): parameterised
  if (interpolatesValue(lit, "")) return true;
  let sqlSoFar = lit.value;
  for (const op of concatOperands(masked, lit.end)) {
    if (op.kind === "literal") {
      if (interpolatesValue(op.lit, sqlSoFar)) return true;
      sqlSoFar += op.lit.value;
    } else if (op.kind === "dynamic") {
      if (!identifierPosition(sqlSoFar)) return true;
      sqlSoFar += "?";
    } else sqlSoFar += "?";
  }
  return dynamicFormatting(lit, masked.code, syntax);
}

function dynamicFormatting(lit: StringLit, code: string, syntax: string): boolean {
  const after = code.slice(lit.end, lit.end + 40);
  if (syntax === "python" && (/^\s*%\s*[\w(]/.test(after) || /^\.format\s*\(/.test(after))) return true;
  if (
    syntax === "c" &&
    /(?:Sprintf|String\.format|string\.Format)\s*\(\s*$/.test(code.slice(Math.max(0, lit.start - 40), lit.start)) &&
    /%[sdvqx]|\{\d\}/.test(lit.value)
  )
    return true;
  return false;
}

/** A command or text built from a non-constant part (template, concatenation, formatting). */
function dynamicString(lit: StringLit, masked: Masked, syntax: string): boolean {
  if (lit.quote === "`" && lit.prefix !== "") return false; // tagged template: the tag receives the values separately
  if (lit.interpolations.some((x) => !isSafeInterpolation(x))) return true;
  if (concatIsDynamic(masked, lit.end)) return true;
  return dynamicFormatting(lit, masked.code, syntax);
}

function evalUse(ctx: FileContext, l: LineView): Finding | null {
  const js = ctx.kind.isJsLike;
  const py = ctx.kind.syntax === "python";
  let what: string | null = null;
  if (js) {
    if (/(?<![\w$.])eval\s*\(/.test(l.code)) what = "eval()";
    else if (/(?<![\w$.])new\s+Function\s*\(/.test(l.code)) what = "new Function()";
    else if (/(?<![\w$.])(?:setTimeout|setInterval)\s*\(\s*["'`]/.test(l.code)) what = "a string passed to setTimeout/setInterval";
    else if (/\bvm\s*\.\s*(?:runInNewContext|runInThisContext|runInContext|compileFunction)\s*\(/.test(l.code)) what = "the vm module";
  } else if (py) {
    const m = /(?<![\w$.])(eval|exec)\s*\(/.exec(l.code);
    if (m) what = `${m[1]}()`;
  }
  if (!what) return null;
  return finding(RULES.eval, l.line, `Code evaluated at run time with ${what}: if any part of the input is attacker-controlled, it runs arbitrary code.`, {
    suggestion: js
      ? "Use JSON.parse for data, a lookup table of functions for dispatch, or a real parser."
      : "Use ast.literal_eval for data, or a dispatch table.",
  });
}

const CP_OBJECTS = new Set(["child_process", "childProcess", "cp", "proc", "childproc"]);

function commandInjection(ctx: FileContext, l: LineView): Finding | null {
  const seg = l.segment;
  if (ctx.kind.isJsLike) {
    const re = /(?<![\w$])(exec|execSync)\s*\(/g;
    for (let m = re.exec(l.code); m; m = re.exec(l.code)) {
      const before = l.code.slice(0, m.index);
      const obj = /([\w$]+)\s*\.\s*$/.exec(before);
      if (obj && !CP_OBJECTS.has(obj[1]!)) continue; // regex.exec(), db.exec(): not a shell
      if (!obj && /\.\s*$/.test(before)) continue;
      const argStart = offsetOf(l, m.index + m[0].length);
      let i = argStart;
      while (i < seg.masked.code.length && /\s/.test(seg.masked.code[i]!)) i++;
      const lit = stringStartingAt(l, i);
      const dynamic = lit ? dynamicString(lit, seg.masked, "js") : /^[\w$.[\]()]+\s*\+/.test(seg.masked.code.slice(i, i + 200));
      if (dynamic) {
        return finding(
          RULES.commandInjection,
          l.line,
          `${m[1]}() runs its argument through a shell, and the command is built from interpolated values: shell metacharacters in them run extra commands.`,
          {
            suggestion: "Use execFile/spawn with an argument array (no shell), and validate the values.",
          },
        );
      }
    }
  } else if (ctx.kind.syntax === "python") {
    const m = /(?<![\w$])(os\.system|os\.popen|subprocess\.(?:run|call|Popen|check_output|check_call))\s*\(/.exec(l.code);
    if (m && (m[1]!.startsWith("os.") || /shell\s*=\s*True/.test(l.code))) {
      let i = offsetOf(l, m.index + m[0].length);
      while (i < seg.masked.code.length && /\s/.test(seg.masked.code[i]!)) i++;
      // A string prefix (f"...") belongs to the literal.
      const pre = /^[rRbBuUfF]{1,2}(?=["'])/.exec(seg.masked.code.slice(i, i + 3));
      const lit = stringStartingAt(l, i + (pre ? pre[0].length : 0));
      if (lit && dynamicString(lit, seg.masked, "python")) {
        return finding(
          RULES.commandInjection,
          l.line,
          `${m[1]} runs a shell command built from interpolated values: shell metacharacters in them run extra commands.`,
          {
            suggestion: "Pass an argument list to subprocess.run without shell=True, or quote with shlex.quote.",
          },
        );
      }
    }
  }
  return null;
}

function sqlInjection(ctx: FileContext, l: LineView): Finding | null {
  // With the syntax tree, ast/sql.ts follows the SQL into the query call instead.
  if (hasTree(ctx)) return null;
  if (!(ctx.kind.isJsLike || ctx.kind.syntax === "python" || ctx.kind.syntax === "c")) return null;
  const seg = l.segment;
  const lineStart = offsetOf(l, 0);
  const lineEnd = lineStart + l.raw.length;
  for (const lit of stringsStartingIn(seg.masked, lineStart, lineEnd)) {
    if (!looksLikeSql(lit.value)) continue;
    if (sqlIsDynamic(lit, seg.masked, ctx.kind.isJsLike ? "js" : ctx.kind.syntax)) {
      return finding(
        RULES.sqlInjection,
        l.line,
        "SQL statement built by string concatenation or interpolation: values in it can change the query (SQL injection).",
        {
          suggestion: "Use bind parameters (`WHERE id = ?` / `$1` with a values array) or a query builder; never splice values into SQL text.",
        },
      );
    }
  }
  return null;
}

const SANITIZED = /\b(?:DOMPurify\s*\.\s*sanitize|sanitize\w*|purify|escapeHtml|escapeHTML|htmlEscape|escape)\s*\(/i;

/** True when the expression starting at `off` is one constant string literal (ends the statement). */
function staticLiteralAt(l: LineView, off: number): boolean {
  const code = l.segment.masked.code;
  let i = off;
  while (i < code.length && /\s/.test(code[i]!)) i++;
  const lit = stringStartingAt(l, i);
  if (!lit || lit.interpolations.length > 0) return false;
  return /^\s*(?:[;,)}\]]|$)/.test(code.slice(lit.end, lit.end + 20).split("\n")[0]!);
}

function xss(ctx: FileContext, l: LineView): Finding | null {
  if (ctx.kind.syntax === "markup" && /\.vue$/.test(ctx.file.path)) {
    if (/\sv-html\s*=/.test(l.raw)) {
      return finding(RULES.xss, l.line, "v-html renders a value as raw HTML: unsanitized content executes scripts (XSS).", {
        suggestion: "Render text with {{ }} or sanitize the HTML (e.g. DOMPurify) first.",
      });
    }
    return null;
  }
  if (!ctx.kind.isJsLike) return null;
  const text = l.code;
  let m = /\.\s*(innerHTML|outerHTML)\s*\+?=(?!=)/.exec(text);
  if (m) {
    const rhs = offsetOf(l, m.index + m[0].length);
    if (!staticLiteralAt(l, rhs) && !SANITIZED.test(l.raw.slice(m.index))) {
      return finding(RULES.xss, l.line, `Assigning a dynamic value to ${m[1]} parses it as HTML: unsanitized content executes scripts (XSS).`, {
        suggestion: "Use textContent for text, build elements with the DOM API, or sanitize with DOMPurify.",
      });
    }
    return null;
  }
  m = /\b(dangerouslySetInnerHTML)\s*=\s*\{/.exec(text);
  if (m) {
    // The __html value may be on this line or the next ones.
    let html: { line: LineView; col: number } | null = null;
    for (let k = 0; k < 4 && !html; k++) {
      const v = ctx.lines.get(l.line + k);
      if (!v) break;
      const h = /__html\s*:\s*/.exec(v.code);
      if (h) html = { line: v, col: h.index + h[0].length };
    }
    if (html && (staticLiteralAt(html.line, offsetOf(html.line, html.col)) || SANITIZED.test(html.line.raw.slice(html.col)))) return null;
    if (!html && SANITIZED.test(l.raw)) return null;
    return finding(RULES.xss, l.line, "dangerouslySetInnerHTML renders a dynamic value as raw HTML: unsanitized content executes scripts (XSS).", {
      suggestion: "Render it as text, or sanitize it (DOMPurify.sanitize) right where it is passed.",
    });
  }
  m = /(?:\.\s*insertAdjacentHTML\s*\(\s*[^,]+,|\bdocument\s*\.\s*write(?:ln)?\s*\()\s*/.exec(text);
  if (m) {
    const arg = offsetOf(l, m.index + m[0].length);
    if (!staticLiteralAt(l, arg) && !SANITIZED.test(l.raw.slice(m.index))) {
      return finding(RULES.xss, l.line, "A dynamic value is written to the page as HTML: unsanitized content executes scripts (XSS).", {
        suggestion: "Insert text nodes (textContent / insertAdjacentText) or sanitize with DOMPurify.",
      });
    }
  }
  return null;
}

const REQ_INPUT = /\b(?:req|request|ctx(?:\.request)?)\s*\.\s*(?:params|query|body|headers|cookies)\b/;
const PY_REQ_INPUT = /\brequest\s*\.\s*(?:args|form|values|files|json|get_json|view_args)\b/;
const FS_SINK =
  /(?:\b(?:fs|fsp|fsPromises|promises)\s*\.\s*(?:readFile|readFileSync|writeFile|writeFileSync|appendFile|appendFileSync|createReadStream|createWriteStream|unlink|unlinkSync|rm|rmSync|readdir|readdirSync|stat|statSync|lstat|access|open|openSync|copyFile|cp|rename|mkdir|existsSync)|(?<![\w$.])(?:readFile|readFileSync|writeFile|writeFileSync|createReadStream|createWriteStream|unlink|readdir)|\bres\s*\.\s*(?:sendFile|download)|\bpath\s*\.\s*(?:join|resolve))\s*\(/;
const CONTAINMENT = /\.startsWith\s*\(|path\s*\.\s*relative\s*\(|\bresolveInside\s*\(|\bisInside\w*\s*\(|\bisPathInside\s*\(/;

const taintCache = new WeakMap<LineView["segment"], Set<string>>();

/** Variables assigned from request input in the visible code of the segment (a small taint pass). */
function taintedNames(ctx: FileContext, seg: LineView["segment"]): Set<string> {
  const cached = taintCache.get(seg);
  if (cached) return cached;
  const names = new Set<string>();
  taintCache.set(seg, names);
  for (let ln = seg.startLine; ln <= seg.endLine; ln++) {
    const v = ctx.lines.get(ln);
    if (!v) continue;
    const m = /\b(?:const|let|var)\s+(\{[^}]*\}|[\w$]+)\s*(?::[^=]+)?=\s*(.*)$/.exec(v.code);
    if (!m) continue;
    const rhs = m[2]!;
    const fromInput = REQ_INPUT.test(rhs) || [...names].some((n) => new RegExp(`(?<![\\w$.])${n.replace(/\$/g, "\\$")}(?![\\w$])`).test(rhs));
    if (!fromInput || /\bbasename\s*\(/.test(rhs) || /\b(?:Number|parseInt|parseFloat)\s*\(/.test(rhs)) continue;
    for (const n of m[1]!.replace(/[{}]/g, "").split(",")) {
      const name = n.split(":").pop()!.split("=")[0]!.trim();
      if (/^[\w$]+$/.test(name)) names.add(name);
    }
  }
  return names;
}

function pathTraversal(ctx: FileContext, l: LineView): Finding | null {
  if (ctx.kind.syntax === "python") {
    if (/(?<![\w$.])(?:open|send_file|os\.path\.join)\s*\(/.test(l.code) && PY_REQ_INPUT.test(l.code) && !/\b(?:secure_filename|basename)\s*\(/.test(l.code)) {
      return finding(RULES.pathTraversal, l.line, "A file path is built from request input: `../` in it reaches files outside the intended directory.", {
        suggestion: "Use werkzeug's secure_filename or os.path.basename, and check the resolved path stays under the base directory.",
      });
    }
    return null;
  }
  if (!ctx.kind.isJsLike) return null;
  const m = FS_SINK.exec(l.code);
  if (!m) return null;
  const args = l.code.slice(m.index + m[0].length);
  const tainted = taintedNames(ctx, l.segment);
  const usesInput = REQ_INPUT.test(args) || [...tainted].some((n) => new RegExp(`(?<![\\w$.])${n.replace(/\$/g, "\\$")}(?![\\w$])`).test(args));
  if (!usesInput || /\bbasename\s*\(/.test(args) || /\broot\s*:/.test(args)) return null;
  // A containment check right after building the path is the fix: do not report it.
  for (let k = 0; k <= 5; k++) {
    const v = ctx.lines.get(l.line + k);
    if (v && CONTAINMENT.test(v.code)) return null;
  }
  return finding(
    RULES.pathTraversal,
    l.line,
    "A file path is built from request input: `../` (or an absolute path) in it reaches files outside the intended directory.",
    {
      suggestion: "Reduce it to a file name (path.basename) or resolve it and check it stays under the base directory before use.",
    },
  );
}

export function injection(ctx: FileContext): Finding[] {
  if (ctx.kind.isTest || ctx.kind.isGenerated) return [];
  const out: Finding[] = [];
  for (const l of ctx.addedLines) {
    for (const check of [evalUse, commandInjection, sqlInjection, xss, pathTraversal]) {
      const f = check(ctx, l);
      if (f) out.push(f);
    }
  }
  return out;
}
