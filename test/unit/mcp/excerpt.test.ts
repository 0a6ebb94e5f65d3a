import { describe, expect, it } from "vitest";
import { excerptLines } from "../../../src/mcp/tools/candidate-tools.js";
import { applyInstructions } from "../../../src/mcp/tools/session-tools.js";

describe("validation excerpts", () => {
  it("shows shared leading and trailing lines as context and only the change as -/+", () => {
    expect(excerptLines(["a", "b", "c", "d"], ["a", "B1", "B2", "d"])).toEqual(["  a", "- b", "- c", "+ B1", "+ B2", "  d"]);
  });
  it("handles pure insertions and deletions", () => {
    expect(excerptLines(["a", "d"], ["a", "b", "d"])).toEqual(["  a", "+ b", "  d"]);
    expect(excerptLines(["a", "b"], ["a"])).toEqual(["  a", "- b"]);
    expect(excerptLines([], ["new"])).toEqual(["+ new"]);
  });
});

describe("how to apply a session's result", () => {
  it("offers a merge only when the baseline had no uncommitted work", () => {
    const clean = applyInstructions({
      id: "20260101-000000-abcd",
      branch: "trm/20260101-000000-abcd",
      bestCommit: "1234567890abcdef",
      uncommittedIncluded: false,
    });
    expect(clean[0]).toMatch(/^(code-trm|node \/\S+\/main\.js) apply 20260101-000000-abcd /);
    expect(clean.join("\n")).toMatch(/git merge trm\/20260101-000000-abcd/);
    const dirty = applyInstructions({ id: "20260101-000000-abcd", branch: "trm/20260101-000000-abcd", bestCommit: null, uncommittedIncluded: true });
    expect(dirty.join("\n")).not.toMatch(/git merge|cherry-pick|--3way/);
  });

  it("names the checkout, so that each line runs from any folder", () => {
    const lines = applyInstructions({
      id: "20260101-000000-abcd",
      branch: "trm/20260101-000000-abcd",
      bestCommit: "1234567890abcdef",
      uncommittedIncluded: false,
      top: "/home/me/my project",
    });
    expect(lines[0]).toMatch(/ apply 20260101-000000-abcd --repo '\/home\/me\/my project' /);
    for (const l of lines.slice(1)) expect(l).toMatch(/^(best step only: |inspect: )?git -C '\/home\/me\/my project' /);
  });
});
