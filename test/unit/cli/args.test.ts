import { describe, expect, it } from "vitest";
import { expectPositionals, type OptionsSpec, optionsHelp, parseArgv, UsageError, wantsHelp } from "../../../src/cli/args.js";

const spec: OptionsSpec = {
  json: { type: "boolean", help: "json" },
  repo: { type: "string", value: "<path>", help: "repo" },
  "dry-run": { type: "boolean", short: "n", help: "dry" },
};

function usage(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error("expected a UsageError");
}

describe("parseArgv", () => {
  it("reads positionals, booleans, values in both spellings, short options and paths after --", () => {
    const p = parseArgv(["id", "--json", "--repo", "../x", "-n", "from", "--", "--not-an-option", "a.ts"], spec, "diff");
    expect(p.positionals).toEqual(["id", "from"]);
    expect(p.flags).toEqual({ json: true, repo: "../x", "dry-run": true });
    expect(p.rest).toEqual(["--not-an-option", "a.ts"]);
    expect(parseArgv(["--repo=/a=b"], spec).flags.repo).toBe("/a=b");
    expect(parseArgv(["-"], spec).positionals).toEqual(["-"]);
    // Common options are known to every command.
    expect(parseArgv(["--no-color", "-h"], {}).flags).toEqual({ "no-color": true, help: true });
  });

  it("refuses unknown options, missing values and values given to switches, naming the command", () => {
    expect(usage(() => parseArgv(["--frob"], spec, "log"))).toMatchObject({ message: "unknown option --frob", command: "log" });
    expect(usage(() => parseArgv(["-x"], spec)).message).toBe("unknown option -x");
    expect(usage(() => parseArgv(["--repo"], spec)).message).toBe("option --repo needs a value <path>");
    // A following option is a forgotten value, not the value.
    expect(usage(() => parseArgv(["--repo", "--json"], spec)).message).toBe("option --repo needs a value <path>");
    expect(usage(() => parseArgv(["--json=yes"], spec)).message).toBe("option --json takes no value");
  });

  it("help wins over everything before --, and only there", () => {
    expect(wantsHelp(["--bogus", "-h"])).toBe(true);
    expect(wantsHelp(["x", "--help"])).toBe(true);
    expect(wantsHelp(["x", "--", "--help"])).toBe(false);
    expect(wantsHelp([])).toBe(false);
  });

  it("checks the number of positionals", () => {
    const p = parseArgv(["a", "b"], {});
    expect(expectPositionals(p, 1, 2, "diff", "<id>")).toEqual(["a", "b"]);
    expect(usage(() => expectPositionals(p, 3, 3, "diff", "<id>")).message).toBe("missing <id>");
    expect(usage(() => expectPositionals(p, 0, 1, "diff", "")).message).toBe('unexpected argument "b"');
  });

  it("renders every option, common ones included, in the help", () => {
    const h = optionsHelp(spec);
    for (const s of ["--json", "--repo <path>", "-n, --dry-run", "-h, --help", "--no-color"]) expect(h).toContain(s);
  });
});
