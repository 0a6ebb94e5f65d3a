import { ALL_RULES, type RuleMeta } from "./rules/catalog.js";
import type { ReviewComment, Severity } from "./types.js";

/**
 * SARIF 2.1.0 rendering of a review, so results load in code-scanning tools (GitHub code scanning,
 * VS Code SARIF viewer). Rules carry their CWE in properties.tags in both the plain (`CWE-79`) and
 * the code-scanning (`external/cwe/cwe-079`) spellings; security rules carry a security-severity.
 */

export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

const LEVEL: Record<Severity, "error" | "warning" | "note"> = { critical: "error", warning: "warning", info: "note" };
const SECURITY_SEVERITY: Record<Severity, string> = { critical: "9.0", warning: "6.0", info: "3.0" };

export interface SarifOptions {
  toolName?: string;
  toolVersion?: string;
  informationUri?: string;
}

function pascal(id: string): string {
  return id
    .split(/[-_]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");
}

function cweTags(cwe: string): string[] {
  const n = /^CWE-(\d+)$/.exec(cwe)?.[1];
  return n ? [cwe, `external/cwe/cwe-${n.padStart(3, "0")}`] : [cwe];
}

function ruleDescriptor(r: RuleMeta): Record<string, unknown> {
  const tags = [r.category, ...(r.category === "security" ? ["security"] : []), ...(r.cwe ? cweTags(r.cwe) : [])];
  const properties: Record<string, unknown> = { tags: [...new Set(tags)], precision: "high" };
  if (r.category === "security") properties["security-severity"] = SECURITY_SEVERITY[r.severity];
  const descriptor: Record<string, unknown> = {
    id: r.id,
    name: pascal(r.id),
    shortDescription: { text: r.title },
    defaultConfiguration: { level: LEVEL[r.severity] },
    properties,
  };
  const n = r.cwe ? /^CWE-(\d+)$/.exec(r.cwe)?.[1] : undefined;
  if (n) descriptor.helpUri = `https://cwe.mitre.org/data/definitions/${n}.html`;
  return descriptor;
}

/** A relative path as a URI reference: each segment percent-encoded, slashes kept. */
export function pathToUri(path: string): string {
  return path
    .split("/")
    .map((s) => encodeURIComponent(s))
    .join("/");
}

export function toSarif(comments: ReviewComment[], opts: SarifOptions = {}): Record<string, unknown> {
  const index = new Map(ALL_RULES.map((r, i) => [r.id, i]));
  const results = comments.map((c) => {
    const result: Record<string, unknown> = {
      ruleId: c.rule,
      level: LEVEL[c.severity],
      message: { text: c.suggestion ? `${c.message} ${c.suggestion}` : c.message },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: pathToUri(c.file), uriBaseId: "%SRCROOT%" },
            region: { startLine: Math.max(1, c.line) },
          },
        },
      ],
      properties: { category: c.category, severity: c.severity, ...(c.cwe ? { cwe: c.cwe } : {}) },
    };
    const i = index.get(c.rule);
    if (i !== undefined) result.ruleIndex = i;
    return result;
  });
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: opts.toolName ?? "code-trm",
            version: opts.toolVersion ?? "0.1.0",
            ...(opts.informationUri ? { informationUri: opts.informationUri } : {}),
            rules: ALL_RULES.map(ruleDescriptor),
          },
        },
        columnKind: "utf16CodeUnits",
        results,
      },
    ],
  };
}
