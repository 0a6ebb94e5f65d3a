import { describe, expect, it } from "vitest";
import { checkId } from "../../../src/cli/find.js";
import { newSessionId, SESSION_ID_RE } from "../../../src/git/refs.js";

describe("checkId", () => {
  it("refuses a malformed id with an example that is itself a well-formed id, shaped like the ids sessions get", () => {
    let message = "";
    try {
      checkId("not-an-id", "log");
    } catch (e) {
      message = (e as Error).message;
    }
    const example = /they look like (\S+)\)/.exec(message)?.[1];
    expect(example).toBeDefined();
    expect(SESSION_ID_RE.test(example!)).toBe(true);
    expect(example!.length).toBe(newSessionId().length);
    expect(checkId(example, "log")).toBe(example);
  });
});
