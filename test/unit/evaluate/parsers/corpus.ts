/** Loads the corpus of real tool outputs under fixtures/outputs (layout described in its README). */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { CommandOutput } from "../../../../src/evaluate/types.js";

export const CORPUS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../fixtures/outputs");
export const CWD = "/WORKTREE";

export interface CorpusCase {
  /** "<tool>/<case>" */
  id: string;
  parse: "tests" | "diagnostics" | "bench";
  output: CommandOutput;
  junitXml?: string;
  /** The Go module path, as code-trm reads it from go.mod. */
  goModule?: string;
  expected: unknown;
}

export function loadCase(id: string): CorpusCase {
  const base = path.join(CORPUS_DIR, id);
  const read = (suffix: string): string | undefined => (existsSync(base + suffix) ? readFileSync(base + suffix, "utf8") : undefined);
  const doc = JSON.parse(readFileSync(`${base}.expected.json`, "utf8")) as {
    parse: CorpusCase["parse"];
    junitXml?: string;
    goModule?: string;
    expected: unknown;
  };
  const txt = read(".txt");
  const stdoutOnly = read(".stdout.txt");
  const stderrOnly = read(".stderr.txt");
  // A case may be a report file alone (written from documentation): the command printed nothing.
  if (txt === undefined && stderrOnly === undefined && doc.junitXml === undefined) throw new Error(`${id}: no output file`);
  const all = txt ?? stderrOnly ?? "";
  // Only <case>.txt: the command wrote only to stdout. Only .stderr.txt: only to stderr.
  const stdout = stdoutOnly ?? (txt !== undefined && stderrOnly === undefined ? txt : "");
  const stderr = stderrOnly ?? "";
  const c: CorpusCase = { id, parse: doc.parse, output: { stdout, stderr, all }, expected: doc.expected };
  if (doc.goModule) c.goModule = doc.goModule;
  if (doc.junitXml) c.junitXml = readFileSync(path.join(path.dirname(base), doc.junitXml), "utf8");
  return c;
}

export function listCases(): string[] {
  const ids: string[] = [];
  for (const tool of readdirSync(CORPUS_DIR, { withFileTypes: true })) {
    if (!tool.isDirectory() || tool.name.startsWith("_")) continue;
    for (const f of readdirSync(path.join(CORPUS_DIR, tool.name))) {
      if (f.endsWith(".expected.json")) ids.push(`${tool.name}/${f.slice(0, -".expected.json".length)}`);
    }
  }
  return ids.sort();
}

/** Output files of the corpus (not expectations, not report files), as case ids. */
export function listOutputCaseIds(): string[] {
  const ids = new Set<string>();
  for (const tool of readdirSync(CORPUS_DIR, { withFileTypes: true })) {
    if (!tool.isDirectory() || tool.name.startsWith("_")) continue;
    for (const f of readdirSync(path.join(CORPUS_DIR, tool.name))) {
      const m = /^(.*?)(\.stdout|\.stderr)?\.txt$/.exec(f);
      if (m) ids.add(`${tool.name}/${m[1]}`);
    }
  }
  return [...ids].sort();
}
