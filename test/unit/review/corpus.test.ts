import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { reviewPr } from "../../../src/review/review.js";

/**
 * The review corpus (fixtures/review/cases): every case is reviewed with all categories and its
 * comments must equal the expected ones exactly. Extra comments are false positives and fail.
 */

const DIR = path.resolve(import.meta.dirname, "../../../fixtures/review/cases");

// Secret-shaped values are assembled here rather than committed, so that secret scanners (and
// push protection) do not flag the fixtures themselves.
const SECRETS: Record<string, string> = {
  "github-token-1": ["ghp", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"].join("_"),
  "github-token-2": ["ghp", "zyxwvutsrqponmlkjihgfedcba9876543210"].join("_"),
  "aws-key-id": ["AKIA", "QWERTYUIOPASDFGH"].join(""),
  "slack-token": ["xoxb", "123456789012", "abcdefghijkl"].join("-"),
  "stripe-key": ["sk", "live", "abcdefghijklmnopqrstuvwx"].join("_"),
  "pem-begin": ["-----BEGIN RSA PRIVATE", "KEY-----"].join(" "),
  "pem-end": ["-----END RSA PRIVATE", "KEY-----"].join(" "),
};

function withSecrets(text: string): string {
  return text.replace(/\{\{secret:([\w-]+)\}\}/g, (_, name: string) => {
    const v = SECRETS[name];
    if (!v) throw new Error(`unknown secret placeholder ${name}`);
    return v;
  });
}

interface Expected {
  description: string;
  assessment: string;
  focus?: string[];
  comments: Array<{ file: string; line: number; severity: string; category: string; rule: string; cwe?: string }>;
}

const cases = readdirSync(DIR)
  .filter((f) => f.endsWith(".diff") || f.endsWith(".files.json"))
  .sort()
  .map((f) => ({ file: f, name: f.replace(/\.diff$|\.files\.json$/, "") }));

const key = (c: Expected["comments"][number]): string => `${c.file}:${String(c.line).padStart(5, "0")}:${c.rule}`;

describe("review corpus", () => {
  it("has issue cases and clean cases", () => {
    expect(cases.filter((c) => c.name.startsWith("clean-")).length).toBeGreaterThanOrEqual(8);
    expect(cases.filter((c) => !c.name.startsWith("clean-")).length).toBeGreaterThanOrEqual(10);
  });

  for (const c of cases) {
    const expected = JSON.parse(readFileSync(path.join(DIR, `${c.name}.expected.json`), "utf8")) as Expected;
    it(`${c.name}: ${expected.description}`, async () => {
      const raw = withSecrets(readFileSync(path.join(DIR, c.file), "utf8"));
      const input = c.file.endsWith(".diff")
        ? { diff: raw }
        : { files: (JSON.parse(raw) as { files: Array<{ path: string; content: string; originalContent?: string }> }).files };
      const focus = expected.focus as Parameters<typeof reviewPr>[0]["focus"];
      const r = await reviewPr({ ...input, ...(focus ? { focus } : {}) }, { env: {} });
      const actual = r.comments.map((x) => ({
        file: x.file,
        line: x.line,
        severity: x.severity,
        category: x.category,
        rule: x.rule,
        ...(x.cwe ? { cwe: x.cwe } : {}),
      }));
      const want = [...expected.comments].sort((a, b) => key(a).localeCompare(key(b)));
      const got = [...actual].sort((a, b) => key(a).localeCompare(key(b)));
      // Name false positives and misses in the failure, not just a diff of two arrays.
      const falsePositives = got.filter((g) => !want.some((w) => key(w) === key(g)));
      const misses = want.filter((w) => !got.some((g) => key(w) === key(g)));
      expect({ falsePositives, misses }).toEqual({ falsePositives: [], misses: [] });
      expect(got).toEqual(want);
      expect(r.summary.assessment).toBe(expected.assessment);
      if (c.name.startsWith("clean-")) expect(r.summary.assessment).toBe("approved");
    });
  }
});
