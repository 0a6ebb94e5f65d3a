import { describe, expect, it } from "vitest";
import { reviewPr } from "../../../src/review/review.js";
import { ALL_RULES } from "../../../src/review/rules/catalog.js";
import { pathToUri, toSarif } from "../../../src/review/sarif.js";

/**
 * Checks the SARIF 2.1.0 log against the parts of the OASIS schema it uses: required properties,
 * enumerations, and no property outside those the schema allows (the schema sets
 * additionalProperties: false on these objects).
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function allowedKeys(o: Obj, keys: string[], where: string): void {
  for (const k of Object.keys(o)) expect(keys, `${where}.${k} is not a SARIF property`).toContain(k);
}

function checkMessage(m: unknown, where: string): void {
  expect(isObj(m), where).toBe(true);
  allowedKeys(m as Obj, ["text", "markdown", "id", "arguments", "properties"], where);
  expect(typeof (m as Obj).text).toBe("string");
}

function checkPropertyBag(p: unknown, where: string): void {
  if (p === undefined) return;
  expect(isObj(p), where).toBe(true);
  const tags = (p as Obj).tags;
  if (tags !== undefined) {
    expect(Array.isArray(tags)).toBe(true);
    expect(new Set(tags as string[]).size, `${where}.tags must be unique`).toBe((tags as string[]).length);
  }
}

function validateSarif(log: Obj): void {
  allowedKeys(log, ["$schema", "version", "runs", "inlineExternalProperties", "properties"], "log");
  expect(log.version).toBe("2.1.0");
  expect(log.$schema).toMatch(/^https:\/\//);
  expect(Array.isArray(log.runs)).toBe(true);
  for (const run of log.runs as Obj[]) {
    expect(isObj(run.tool)).toBe(true);
    allowedKeys(run.tool as Obj, ["driver", "extensions", "properties"], "tool");
    const driver = (run.tool as Obj).driver as Obj;
    allowedKeys(
      driver,
      [
        "guid",
        "name",
        "fullName",
        "version",
        "semanticVersion",
        "informationUri",
        "rules",
        "notifications",
        "taxa",
        "organization",
        "product",
        "properties",
        "shortDescription",
        "fullDescription",
        "downloadUri",
        "language",
        "dottedQuadFileVersion",
        "releaseDateUtc",
        "productSuite",
        "contents",
        "isComprehensive",
        "localizedDataSemanticVersion",
        "minimumRequiredLocalizedDataSemanticVersion",
        "associatedComponent",
        "translationMetadata",
        "supportedTaxonomies",
        "globalMessageStrings",
      ],
      "driver",
    );
    expect(typeof driver.name).toBe("string");
    const rules = driver.rules as Obj[];
    const ids = rules.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of rules) {
      allowedKeys(
        r,
        [
          "id",
          "deprecatedIds",
          "guid",
          "deprecatedGuids",
          "name",
          "deprecatedNames",
          "shortDescription",
          "fullDescription",
          "messageStrings",
          "defaultConfiguration",
          "helpUri",
          "help",
          "relationships",
          "properties",
        ],
        `rule ${String(r.id)}`,
      );
      expect(typeof r.id).toBe("string");
      allowedKeys(r.shortDescription as Obj, ["text", "markdown", "properties"], "shortDescription");
      expect(typeof (r.shortDescription as Obj).text).toBe("string");
      const cfg = r.defaultConfiguration as Obj;
      allowedKeys(cfg, ["enabled", "level", "rank", "parameters", "properties"], "defaultConfiguration");
      expect(["none", "note", "warning", "error"]).toContain(cfg.level);
      checkPropertyBag(r.properties, `rule ${String(r.id)}.properties`);
      if (r.helpUri !== undefined) expect(() => new URL(r.helpUri as string)).not.toThrow();
    }
    allowedKeys(
      run,
      [
        "tool",
        "invocations",
        "conversion",
        "language",
        "versionControlProvenance",
        "originalUriBaseIds",
        "artifacts",
        "logicalLocations",
        "graphs",
        "results",
        "automationDetails",
        "runAggregates",
        "baselineGuid",
        "redactionTokens",
        "defaultEncoding",
        "defaultSourceLanguage",
        "newlineSequences",
        "columnKind",
        "externalPropertyFileReferences",
        "threadFlowLocations",
        "taxonomies",
        "addresses",
        "translations",
        "policies",
        "webRequests",
        "webResponses",
        "specialLocations",
        "properties",
      ],
      "run",
    );
    expect(["utf16CodeUnits", "unicodeCodePoints"]).toContain(run.columnKind);
    for (const res of run.results as Obj[]) {
      allowedKeys(
        res,
        [
          "ruleId",
          "ruleIndex",
          "rule",
          "kind",
          "level",
          "message",
          "analysisTarget",
          "locations",
          "guid",
          "correlationGuid",
          "occurrenceCount",
          "partialFingerprints",
          "fingerprints",
          "stacks",
          "codeFlows",
          "graphs",
          "graphTraversals",
          "relatedLocations",
          "suppressions",
          "baselineState",
          "rank",
          "attachments",
          "hostedViewerUri",
          "workItemUris",
          "provenance",
          "fixes",
          "taxa",
          "webRequest",
          "webResponse",
          "properties",
        ],
        "result",
      );
      expect(["none", "note", "warning", "error"]).toContain(res.level);
      checkMessage(res.message, "result.message");
      expect(rules[res.ruleIndex as number]!.id).toBe(res.ruleId);
      for (const loc of res.locations as Obj[]) {
        allowedKeys(loc, ["id", "physicalLocation", "logicalLocations", "message", "annotations", "relationships", "properties"], "location");
        const phys = loc.physicalLocation as Obj;
        allowedKeys(phys, ["address", "artifactLocation", "region", "contextRegion", "properties"], "physicalLocation");
        const art = phys.artifactLocation as Obj;
        allowedKeys(art, ["uri", "uriBaseId", "index", "description", "properties"], "artifactLocation");
        // format: uri-reference
        expect(() => new URL(art.uri as string, "file:///root/")).not.toThrow();
        expect(art.uri).not.toMatch(/\s/);
        const region = phys.region as Obj;
        allowedKeys(
          region,
          [
            "startLine",
            "startColumn",
            "endLine",
            "endColumn",
            "charOffset",
            "charLength",
            "byteOffset",
            "byteLength",
            "snippet",
            "message",
            "sourceLanguage",
            "properties",
          ],
          "region",
        );
        expect(Number.isInteger(region.startLine) && (region.startLine as number) >= 1).toBe(true);
      }
      checkPropertyBag(res.properties, "result.properties");
    }
  }
}

const DIFF = [
  "diff --git a/src/my app/run.ts b/src/my app/run.ts",
  "--- a/src/my app/run.ts",
  "+++ b/src/my app/run.ts",
  "@@ -1,2 +1,5 @@",
  " export function run(cmd: string) {",
  "+  eval(cmd);",
  "+  console.log(cmd);",
  "+  // TODO: validate",
  " }",
  "",
].join("\n");

describe("SARIF output", () => {
  it("format: sarif returns a valid SARIF 2.1.0 log with levels mapped from severities", async () => {
    const r = await reviewPr({ diff: DIFF, format: "sarif" });
    expect(r.sarif).toBeDefined();
    validateSarif(r.sarif as Obj);
    const run = (r.sarif!.runs as Obj[])[0]!;
    const results = run.results as Obj[];
    expect(results.map((x) => [x.ruleId, x.level])).toEqual([
      ["eval", "error"],
      ["console-log", "warning"],
      ["todo-comment", "note"],
    ]);
    const loc = (results[0]!.locations as Obj[])[0]!.physicalLocation as Obj;
    expect(loc).toEqual({ artifactLocation: { uri: "src/my%20app/run.ts", uriBaseId: "%SRCROOT%" }, region: { startLine: 2 } });
  });

  it("lists every rule with its CWE in properties.tags (plain and code-scanning spellings)", () => {
    const log = toSarif([]);
    validateSarif(log);
    const rules = ((log.runs as Obj[])[0]!.tool as Obj).driver as Obj;
    const byId = new Map((rules.rules as Obj[]).map((r) => [r.id, r]));
    expect(byId.size).toBe(ALL_RULES.length);
    for (const meta of ALL_RULES.filter((m) => m.cwe)) {
      const tags = (byId.get(meta.id)!.properties as Obj).tags as string[];
      const n = meta.cwe!.slice(4);
      expect(tags).toContain(meta.cwe);
      expect(tags).toContain(`external/cwe/cwe-${n.padStart(3, "0")}`);
      expect(tags).toContain("security");
      expect((byId.get(meta.id)!.properties as Obj)["security-severity"]).toMatch(/^\d+\.\d$/);
    }
    expect((byId.get("sql-injection")!.properties as Obj).tags as string[]).toEqual(["security", "CWE-89", "external/cwe/cwe-089"]);
  });

  it("format json (default) has no sarif", async () => {
    expect((await reviewPr({ diff: DIFF })).sarif).toBeUndefined();
  });

  it("encodes paths as URI references", () => {
    expect(pathToUri("src/a b/#x%.ts")).toBe("src/a%20b/%23x%25.ts");
  });
});
