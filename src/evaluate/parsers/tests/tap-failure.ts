/**
 * A failing TAP point's message and location, from what each producer puts in its YAML diagnostics:
 * node --test (`error`, `name`, `stack`, `location`), Vitest (`error.name`, `error.message`, `at`), AVA
 * (`message`, a `details` map, `at`), node-tap and tape (the assertion's own name, `diff` or
 * `expected`/`actual`, `at`), or mocha's plain lines under the point.
 */
import type { TestFailure } from "../../types.js";
import { boundMessage, errorOfDump, firstProjectFrame, isProjectPath, locationFile, normalizePath, parseJsFrame } from "../util.js";
import { failure } from "./common.js";
import type { TapPoint } from "./tap-stream.js";

/** `assertion` names the failing assertion of a test whose points are assertions (node-tap, tape). */
export function tapFailure(p: TapPoint, name: string, cwd?: string, assertion?: string): TestFailure {
  const y: Record<string, string | undefined> = { ...p.diag };
  if (assertion !== undefined) y.assertion = assertion;
  // mocha's TAP prints the message and stack as plain indented lines.
  if (p.body && y.stack === undefined) y.stack = dropRepeatedMessage(p.body).join("\n");
  let message: string | undefined;
  const error = y.error;
  if (error !== undefined && error !== "test failed" && error !== "") {
    message = y.name && !error.startsWith(y.name) ? `${y.name}: ${error}` : error;
  } else if (error === "test failed") {
    // A test file that crashed: node reports only "test failed"; the cause is in the comments above.
    message = p.comments.find((c) => /^\s*[\w.]*(Error|Exception)\b[^:]*: /.test(c))?.trim() ?? error;
  } else if (y["error.message"]) {
    // vitest: a nested error map.
    message = y["error.name"] ? `${y["error.name"]}: ${y["error.message"]}` : y["error.message"];
  } else if (y.message || detailsOf(y)) {
    // ava: the message (often empty) and a details map whose key says what happened.
    const details = detailsOf(y);
    message = y.message && details?.startsWith(y.message) ? details : [y.message, details].filter(Boolean).join("\n");
  } else if (y.assertion !== undefined) {
    // node-tap and tape: the failing assertion's own name, then what it compared.
    const cmp = y.diff ?? (y.expected !== undefined || y.actual !== undefined ? `expected: ${y.expected ?? ""}\nactual: ${y.actual ?? ""}` : undefined);
    message = [y.type && !y.assertion.startsWith(y.type) ? `${y.type}: ${y.assertion}` : y.assertion, cmp].filter(Boolean).join("\n");
  } else if (y.stack) {
    message = y.stack;
  }
  let loc: { file?: string; line?: number } | undefined = atOf(y, cwd) ?? firstProjectFrame(y.stack, cwd);
  if (!loc && y.location) {
    const m = /^(.*):(\d+):(\d+)$/.exec(y.location);
    if (m) loc = { file: normalizePath(m[1]!, cwd), line: Number(m[2]) };
  }
  const f = failure(name, boundMessage(message), loc);
  // node --test: where the test was declared, the file failing first gives node to run (runners/node.ts).
  const testFile = y.location === undefined ? undefined : locationFile(y.location, cwd);
  if (testFile) f.testFile = testFile;
  return f;
}

/**
 * mocha prints the message, then the stack, whose first line repeats the message after the error
 * type ("TypeError: <message>"); keep the typed version only.
 */
function dropRepeatedMessage(body: string[]): string[] {
  const first = body.find((l) => l.trim() !== "")?.trim();
  if (!first) return body;
  for (let k = 1; k < body.length && k < 40; k++) {
    const m = /^\s*[\w$.]*(?:Error|Exception)\b[^:]*: (.*)$/.exec(body[k]!);
    if (m && m[1]!.trim() === first) return body.slice(k);
  }
  return body;
}

/**
 * ava's `details` map: its key says what happened (`'Difference (- actual, + expected):'`,
 * `'Error thrown in test:'`), its value shows it. A thrown error is shown as an object dump
 * (`TypeError {\n  message: '…',\n}`): it is said as the default reporter says it,
 * `Error thrown in test: TypeError: …`.
 */
function detailsOf(y: Record<string, string | undefined>): string | undefined {
  for (const [k, v] of Object.entries(y)) {
    if (!k.startsWith("details.") || v === undefined) continue;
    const key = k.slice("details.".length);
    const err = errorOfDump(v);
    return err ? `${key.replace(/[.:]?\s*(?:Reason:)?$/, "")}: ${err}` : `${key}\n${v}`;
  }
  return undefined;
}

/** The assertion's place: `at: fn (file:1:2)` (ava, tape, vitest) or node-tap's `at.fileName`/`at.lineNumber`. */
function atOf(y: Record<string, string | undefined>, cwd?: string): { file: string; line?: number } | undefined {
  if (y["at.fileName"] !== undefined) {
    const file = normalizePath(y["at.fileName"], cwd);
    const line = Number(y["at.lineNumber"]);
    return isProjectPath(file, cwd) ? { file, ...(Number.isFinite(line) ? { line } : {}) } : undefined;
  }
  if (y.at === undefined) return undefined;
  const at = y.at.trim();
  const frame = parseJsFrame(at.startsWith("at ") || at.includes("(") ? at : `at ${at}`);
  const m = frame ?? (/^(\S+):(\d+)(?::\d+)?$/.exec(at) ? { file: at.replace(/:\d+(?::\d+)?$/, ""), line: Number(/:(\d+)(?::\d+)?$/.exec(at)![1]) } : null);
  if (!m) return undefined;
  const file = normalizePath(m.file, cwd);
  return isProjectPath(file, cwd) ? { file, ...(m.line !== undefined ? { line: m.line } : {}) } : undefined;
}
