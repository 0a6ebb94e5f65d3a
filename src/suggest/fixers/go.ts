import path from "node:path";
import { type FixInput, type FixTarget, failedCalls, filesNamedIn, filesOf, type ToolFixer } from "./types.js";

/** gofmt for formatting, goimports for unused and missing imports (it also formats). */

const GO = [".go"];
// Go 1.19 build: `imported and not used: "os"`, vet: `"os" imported but not used`; Go 1.20+: `"os" imported and not used`.
const IMPORT_RE = /imported (and|but) not used|^undefined: [a-z]\w*$/;
// gofmt as a word of the command line, not goimports or a path containing it.
const GOFMT_CALL = /(^|[\s;&|(`$"'])gofmt\b/;
const GOIMPORTS_CALL = /(^|[\s;&|(`$"'/])goimports\b/;

/** Without a file list (`test -z "$(gofmt -l .)"` prints nothing), every tracked .go file. */
function formatTarget(input: FixInput, call: RegExp, what: string): FixTarget | null {
  const calls = failedCalls(input.commands, call);
  if (calls.length === 0) return null;
  const named = [...new Set(calls.flatMap((c) => filesNamedIn(c.output, GO)))];
  return { problems: [], files: named.length ? named : null, what };
}

// Nothing downloaded: no toolchain switch, no module proxy.
const goEnv = { GOTOOLCHAIN: "local", GOPROXY: "off" };

export const gofmt: ToolFixer = {
  name: "gofmt",
  tool: "gofmt",
  label: "gofmt -w",
  extensions: GO,
  targets: (input) => formatTarget(input, GOFMT_CALL, "formatting (gofmt reports files)"),
  command: ({ bin, files }) => ({ argv: [bin, "-w", "--", ...files.map((f) => `./${f}`)], env: goEnv }),
  // gofmt has no --version; the go next to it says which toolchain it belongs to.
  version: (bin) => [path.join(path.dirname(bin), "go"), "version"],
  okExit: [0],
  timeoutMs: 60_000,
};

export const goimports: ToolFixer = {
  name: "goimports",
  tool: "goimports",
  label: "goimports -w",
  extensions: GO,
  targets(input) {
    const problems = input.diagnostics.filter((d) => d.source === "go" && IMPORT_RE.test(d.message));
    const fmt = formatTarget(input, GOIMPORTS_CALL, "formatting or imports (goimports reports files)");
    if (problems.length === 0) return fmt;
    const files = [...new Set([...filesOf(problems, GO), ...(fmt?.files ?? [])])];
    return { problems, files: fmt && fmt.files === null ? null : files, what: "unused or missing import" };
  },
  command: ({ bin, files }) => ({ argv: [bin, "-w", "--", ...files.map((f) => `./${f}`)], env: goEnv }),
  // goimports prints no version.
  version: () => null,
  okExit: [0],
  timeoutMs: 60_000,
};
