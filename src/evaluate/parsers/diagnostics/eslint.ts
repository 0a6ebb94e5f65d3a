/**
 * ESLint, with its two formatters that ship in ESLint 9+:
 *
 * stylish (default): a file header line, then one indented line per problem:
 *   /repo/src/app.js
 *     4:9   error    'unused' is assigned a value but never used  no-unused-vars
 *     2:3   error    Parsing error: Unexpected keyword 'return'
 *
 * json (`-f json`): an array of { filePath, messages: [{ ruleId, severity, message, line, column }] }.
 */
import type { Diagnostic } from "../../types.js";
import { isRecord, num, str, tryJson } from "../util.js";
import { type DiagInput, diag } from "./common.js";

const PROBLEM_RE = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.*)$/;
const RULE_RE = /^(?:@[\w.-]+\/)?[\w.-]+(?:\/[\w.-]+)*$/;

/**
 * A problem line's text as message and rule id: the rule is the last column, two or more spaces after the
 * message (padded to align), when it looks like one (ESLint's stylish formatter, xo's pretty one).
 */
export function splitRuleColumn(text: string): { message: string; rule?: string } {
  const rest = text.trimEnd();
  const cut = rest.lastIndexOf("  ");
  const candidate = cut > 0 ? rest.slice(cut).trim() : "";
  return RULE_RE.test(candidate) ? { message: rest.slice(0, cut).trim(), rule: candidate } : { message: rest };
}

export function parseEslintStylish({ lines, cwd }: DiagInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  let file: string | undefined;
  for (const line of lines) {
    if (line === "" || line.startsWith("✖ ")) {
      if (line.startsWith("✖ ")) file = undefined;
      continue;
    }
    if (!/^\s/.test(line)) {
      // A header is a path on its own line: absolute, or with a directory or an extension.
      file = /^(\/|[A-Za-z]:\\|\.{0,2}[\w@.-]*[\\/]|[\w@.-]+\.\w+$)\S*( \S+)*$/.test(line) && !line.includes(": ") ? line.trim() : undefined;
      continue;
    }
    if (file === undefined) continue;
    const m = PROBLEM_RE.exec(line);
    if (!m) continue;
    const { message, rule } = splitRuleColumn(m[4]!);
    out.push(
      diag("eslint", m[3] === "error" ? "error" : "warning", message, { file, line: Number(m[1]), column: Number(m[2]), ...(rule ? { code: rule } : {}) }, cwd),
    );
  }
  return out;
}

function isEslintJson(v: unknown): v is unknown[] {
  return Array.isArray(v) && (v.length === 0 || (isRecord(v[0]) && typeof v[0].filePath === "string" && Array.isArray(v[0].messages)));
}

export function parseEslintJson({ text, cwd }: DiagInput): Diagnostic[] {
  const at = text.indexOf('[{"filePath":');
  if (at < 0) return [];
  // The formatter prints one line; other output (npm banners) may surround it.
  const end = text.indexOf("\n", at);
  let doc = tryJson(text.slice(at, end < 0 ? text.length : end));
  if (!isEslintJson(doc)) doc = tryJson(text.slice(at).trim());
  if (!isEslintJson(doc)) return [];
  const out: Diagnostic[] = [];
  for (const f of doc) {
    if (!isRecord(f) || !Array.isArray(f.messages)) continue;
    const file = str(f.filePath);
    for (const m of f.messages as unknown[]) {
      if (!isRecord(m)) continue;
      const message = str(m.message);
      if (!message) continue;
      const severity = num(m.severity) === 2 || m.fatal === true ? "error" : "warning";
      // stylish drops the final period; do the same so both formatters give identical diagnostics
      // (and a step evaluated with either compares equal).
      out.push(
        diag(
          "eslint",
          severity,
          message.replace(/([^ ])\.$/u, "$1"),
          { file, line: num(m.line), column: num(m.column), code: str(m.ruleId) ?? undefined },
          cwd,
        ),
      );
    }
  }
  return out;
}
