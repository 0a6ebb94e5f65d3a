import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../../src/session/config.js";
import { strengthWeight } from "../../../src/session/test-strength.js";

describe("testStrength at start: true reports, a number is also a weight in the score", () => {
  it("keeps true and a weight in [0, 1], and 0 or false turns it off", () => {
    expect(resolveConfig({ repoPath: "/r", testCmd: "t", testStrength: true }).testStrength).toBe(true);
    expect(resolveConfig({ repoPath: "/r", testCmd: "t", testStrength: 0.3 }).testStrength).toBe(0.3);
    expect(resolveConfig({ repoPath: "/r", testCmd: "t", testStrength: 0 }).testStrength).toBeUndefined();
    expect(resolveConfig({ repoPath: "/r", testCmd: "t", testStrength: false }).testStrength).toBeUndefined();
    expect(strengthWeight(true)).toBe(0);
    expect(strengthWeight(0.3)).toBe(0.3);
    expect(strengthWeight(undefined)).toBe(0);
  });

  it("refuses a weight outside [0, 1] with what to pass instead", () => {
    for (const w of [1.5, -0.1, Number.NaN])
      expect(() => resolveConfig({ repoPath: "/r", testCmd: "t", testStrength: w })).toThrow(/not a weight between 0 and 1/);
  });
});
