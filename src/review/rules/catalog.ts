import type { Category, Finding, Severity } from "../types.js";

/**
 * Every rule the reviewer knows, with its default severity and CWE. The catalog is what the SARIF
 * output lists as the tool's rules, so ids are stable: tools that load SARIF track results by them.
 */
export interface RuleMeta {
  id: string;
  category: Category;
  severity: Severity;
  cwe?: string;
  /** One line, used as the SARIF shortDescription. */
  title: string;
}

const R = (id: string, category: Category, severity: Severity, title: string, cwe?: string): RuleMeta =>
  cwe ? { id, category, severity, title, cwe } : { id, category, severity, title };

export const RULES = {
  explicitAny: R("ts-explicit-any", "type-safety", "warning", "Explicit `any` disables type checking"),
  nonNull: R("ts-non-null-assertion", "type-safety", "info", "Non-null assertion `x!` hides a possible null or undefined"),
  tsIgnore: R("ts-ignore", "type-safety", "warning", "`@ts-ignore` / `@ts-nocheck` silences the compiler"),
  console: R("console-log", "logging", "warning", "Debug console output left in source code"),
  todo: R("todo-comment", "todos", "info", "TODO comment added"),
  fixme: R("fixme-comment", "todos", "warning", "FIXME / XXX / HACK comment added"),
  magicNumber: R("magic-number", "code-quality", "info", "Unnamed numeric literal in logic"),
  longLine: R("long-line", "code-quality", "info", "Code line longer than the project's own limit"),
  deepNesting: R("deep-nesting", "code-quality", "warning", "Control flow nested more than 4 levels"),
  longFunction: R("long-function", "code-quality", "info", "Function longer than 80 lines"),
  duplicateBlock: R("duplicate-block", "code-quality", "info", "Block duplicated within the change"),
  emptyCatch: R("empty-catch", "error-handling", "warning", "Empty catch block"),
  swallowedError: R("swallowed-error", "error-handling", "warning", "Caught error is discarded"),
  floatingPromise: R("floating-promise", "error-handling", "warning", "Promise neither awaited nor handled"),
  eval: R("eval", "security", "critical", "Dynamic code evaluation", "CWE-95"),
  commandInjection: R("command-injection", "security", "critical", "Shell command built from interpolated strings", "CWE-78"),
  sqlInjection: R("sql-injection", "security", "critical", "SQL built by string concatenation or interpolation", "CWE-89"),
  xss: R("xss-html", "security", "warning", "Dynamic HTML written to the DOM", "CWE-79"),
  secret: R("hardcoded-secret", "security", "critical", "Hard-coded secret or key", "CWE-798"),
  weakHash: R("weak-hash", "security", "warning", "Weak hash algorithm (MD5 / SHA-1)", "CWE-327"),
  weakCipher: R("weak-cipher", "security", "warning", "Broken or deprecated cipher", "CWE-327"),
  insecureRandom: R("insecure-random", "security", "warning", "Math.random used for a security value", "CWE-338"),
  tlsDisabled: R("tls-disabled", "security", "critical", "TLS certificate verification disabled", "CWE-295"),
  pathTraversal: R("path-traversal", "security", "critical", "File path built from request input", "CWE-22"),
  missingTests: R("missing-tests", "testing", "info", "Source file changed without a test of it"),
  testOnly: R("test-only", "testing", "critical", "Focused test (.only) left in"),
  testSkip: R("test-skip", "testing", "warning", "Test switched off (.skip)"),
  largeChange: R("large-change", "size", "info", "Large changeset"),
} as const satisfies Record<string, RuleMeta>;

export const ALL_RULES: RuleMeta[] = Object.values(RULES);

export function finding(meta: RuleMeta, line: number, message: string, extra: { suggestion?: string; severity?: Severity } = {}): Finding {
  return {
    line,
    rule: meta.id,
    severity: extra.severity ?? meta.severity,
    category: meta.category,
    message,
    ...(extra.suggestion ? { suggestion: extra.suggestion } : {}),
    ...(meta.cwe ? { cwe: meta.cwe } : {}),
  };
}
