/** The raw-output excerpt leaves out pytest's session header, so its room goes to the failure summary. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { withoutPytestHeader } from "../../../../src/evaluate/parsers/tests/pytest.js";
import { capHeadTail } from "../../../../src/util/text.js";

const OUT = readFileSync(path.join(__dirname, "../../../../fixtures/outputs/_excerpts/pytest9-collection-error.txt"), "utf8");

describe("pytest's header in an excerpt", () => {
  it("is left out: platform, plugins, benchmark settings and rootdir go, the error and the summary stay", () => {
    const kept = withoutPytestHeader(OUT);
    for (const noise of ["platform linux", "benchmark: 5.2.3", "plugins: ", "rootdir: ", "test session starts"]) expect(kept).not.toContain(noise);
    for (const signal of ["ModuleNotFoundError: No module named 'nonexistent_mod'", "short test summary info", "ERROR test_x.py", "1 error in"])
      expect(kept).toContain(signal);
  });

  it("gives a short excerpt the failure summary the header used to push out", () => {
    const max = 420;
    expect(capHeadTail(OUT.trim(), max).text).toContain("benchmark: 5.2.3");
    const excerpt = capHeadTail(withoutPytestHeader(OUT).trim(), max).text;
    expect(excerpt).not.toContain("benchmark");
    expect(excerpt).toContain("ERROR collecting test_x.py");
    expect(excerpt).toContain("1 error during collection");
  });
});
