/**
 * errorOfDump reads an error's own message from concordance's dump, which prints the error's other keys
 * first and `message` last (concordance 5, as AVA 4-6 use it): a `message` inside one of those keys is
 * another object's.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseTests } from "../../../../src/evaluate/parsers/index.js";
import { errorOfDump } from "../../../../src/evaluate/parsers/util.js";
import { CORPUS_DIR, CWD } from "./corpus.js";

// concordance.format(Object.assign(new Error(), { response: { message: "server said no" } })), and of
// an error with an error-valued key and no message of its own.
const NESTED = "Error {\n  response: {\n    message: 'server said no',\n  },\n  message: '',\n}";
const NESTED_ERROR = "Error {\n  info: TypeError {\n    message: 'deep',\n  },\n  message: '',\n}";

describe("errorOfDump: the error's own message only", () => {
  it("does not take the message of an object inside the error for the error's", () => {
    expect(errorOfDump(NESTED)).toBeUndefined();
    expect(errorOfDump(NESTED_ERROR)).toBeUndefined();
    expect(errorOfDump("Error {\n  response: {\n    message: 'inner',\n  },\n  message: 'outer',\n}")).toBe("Error: outer");
  });

  it("AVA's report of such an error shows the dump, as before, not the inner message as the error's", () => {
    const indent = (s: string) =>
      s
        .split("\n")
        .map((l) => `  ${l}`)
        .join("\n");
    const real = readFileSync(path.join(CORPUS_DIR, "ava", "ava5-default-failing.txt"), "utf8");
    const own = "  TypeError {\n    message: 'Cannot read properties of undefined (reading \\'toUpperCase\\')',\n  }";
    expect(real).toContain(own);
    const all = real.replace(own, indent(NESTED));
    const f = parseTests({ stdout: all, stderr: "", all }, { cwd: CWD })!.failures.find((x) => x.name === "lib › shout without name");
    expect(f?.message).not.toMatch(/Error: server said no/);
    expect(f?.message).toContain("server said no");
  });
});

describe("errorOfDump in AVA's TAP YAML (read without its indentation)", () => {
  it("does not take the message of an object inside the error for the error's", () => {
    const flat = (s: string) =>
      s
        .split("\n")
        .map((l) => l.trim())
        .join("\n");
    expect(errorOfDump(flat(NESTED))).toBeUndefined();
    expect(errorOfDump(flat(NESTED_ERROR))).toBeUndefined();
    expect(errorOfDump(flat("Error {\n  response: {\n    message: 'inner',\n  },\n  message: 'outer',\n}"))).toBe("Error: outer");
  });
});

describe("errorOfDump of a subclass", () => {
  it("reads the heads concordance 5.0.4 prints for subclasses, with or without their own name", () => {
    // concordance.format(Object.assign(new (class DbError extends Error {})("down"), { code: "E1" }))
    expect(errorOfDump("Error (DbError) {\n  code: 'E1',\n  message: 'down',\n}")).toBe("Error: down");
    // a subclass whose constructor sets this.name = "NamedErr"
    expect(errorOfDump("NamedErr @Error {\n  message: 'x',\n}")).toBe("NamedErr: x");
    expect(errorOfDump("Point @Thing {\n  message: 'x',\n}")).toBeUndefined();
  });
});

describe("errorOfDump of an error with many keys before its message", () => {
  // concordance 5.0.4's dump of an Error with `code` and a `config` of 60 headers (as an HTTP client's
  // error carries): `message` comes last, 67 lines below the head.
  const headers = Array.from({ length: 60 }, (_, i) => `      'x-h${i}': 'v${i}',`).sort();
  const dump = [
    "Error {",
    "  code: 'ERR_BAD_RESPONSE',",
    "  config: {",
    "    headers: {",
    ...headers,
    "    },",
    "    method: 'get',",
    "  },",
    "  message: 'request failed with status 500',",
    "}",
  ].join("\n");

  it("reads the message at the end of the error's block, however far below the head", () => {
    expect(errorOfDump(dump)).toBe("Error: request failed with status 500");
    expect(
      errorOfDump(
        dump
          .split("\n")
          .map((l) => l.trim())
          .join("\n"),
      ),
    ).toBe("Error: request failed with status 500");
  });

  it("reads hostile output in linear time: heads that never close, and blocks one after another", () => {
    const open = "Error {\n  a: {\n".repeat(200_000);
    const closed = "Error {\n  a: 1,\n}\n".repeat(200_000);
    const t = performance.now();
    expect(errorOfDump(open)).toBeUndefined();
    expect(errorOfDump(closed)).toBeUndefined();
    expect(performance.now() - t).toBeLessThan(5_000);
  });
});
