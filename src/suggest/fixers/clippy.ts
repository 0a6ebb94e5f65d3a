import { existsSync } from "node:fs";
import path from "node:path";
import { filesOf, type ToolFixer } from "./types.js";

/**
 * `cargo clippy --fix` applies the machine-applicable suggestions of clippy and rustc (unused imports,
 * needless returns, ...). It compiles the crate, so it gets its own target directory outside the copy
 * (removed with it) and a longer timeout; errors with an E-code stop compilation and are not its job.
 */
const RS = [".rs"];
const CARGO_SCOPE = /(?<=\s)--(all-targets|tests|benches|examples|workspace|all-features|lib|bins)(?=\s|$)/g;

/** The directory of the Cargo.toml nearest above `file` among the tracked files ("" for the root). */
export function crateDirOf(file: string, tracked: string[]): string | null {
  const manifests = new Set(tracked.filter((f) => f === "Cargo.toml" || f.endsWith("/Cargo.toml")));
  for (let dir = path.posix.dirname(file); ; dir = path.posix.dirname(dir)) {
    const d = dir === "." ? "" : dir;
    if (manifests.has(d ? `${d}/Cargo.toml` : "Cargo.toml")) return d;
    if (d === "") return null;
  }
}

/** rustup and Debian install cargo-clippy next to cargo; the cargo there is the one it belongs to. */
function cargoNextTo(bin: string): string {
  const cargo = path.join(path.dirname(bin), "cargo");
  return existsSync(cargo) ? cargo : "cargo";
}

export const clippy: ToolFixer = {
  name: "clippy",
  tool: "cargo-clippy",
  label: "cargo clippy --fix",
  extensions: RS,
  targets({ diagnostics, commands }) {
    const problems = diagnostics.filter((d) => d.source === "rustc" && d.file?.endsWith(".rs") && !/^E\d{4}$/.test(d.code ?? ""));
    if (problems.length === 0) return null;
    // The targets and features the session's own cargo command builds: more would need dev-dependencies
    // it may not have (offline), fewer would miss the lints in tests.
    const args = [...new Set(commands.flatMap((c) => (/\bcargo\s/.test(c.cmd) ? (c.cmd.match(CARGO_SCOPE) ?? []) : [])))].sort();
    // Whatever it fixes in the crate is compared, not only the files named.
    return { problems, files: null, what: "clippy / rustc lint", args };
  },
  command({ bin, tracked, aside, target }) {
    const first = filesOf(target.problems, RS)[0];
    const crate = first ? crateDirOf(first, tracked) : null;
    const cargo = cargoNextTo(bin);
    return {
      argv: [cargo, "clippy", "--fix", "--allow-dirty", "--allow-staged", "--allow-no-vcs", "--offline", ...(target.args ?? [])],
      cwd: crate ?? "",
      env: { CARGO_TARGET_DIR: aside, CARGO_TERM_COLOR: "never", CARGO_NET_OFFLINE: "true" },
    };
  },
  version: (bin) => [cargoNextTo(bin), "clippy", "--version"],
  okExit: [0],
  timeoutMs: 180_000,
};
