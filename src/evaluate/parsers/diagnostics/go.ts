/**
 * The Go toolchain: compiler errors from `go build` / `go test` and findings of `go vet`, both as
 * `path/file.go:line:col: message` (vet prefixes type errors with `vet: `), grouped under `# package`
 * headers. Neither has codes. Lines indented by a test's output (`    x_test.go:13: want 6`) are test
 * logs, not diagnostics, and are not read.
 */
import type { Diagnostic } from "../../types.js";
import { type DiagInput, diag } from "./common.js";

const GO_RE = /^(?:vet: )?(\S+\.go):(\d+)(?::(\d+))?: (.*)$/;

export function parseGo({ lines, cwd }: DiagInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const line of lines) {
    if (!line.includes(".go:")) continue;
    const m = GO_RE.exec(line);
    if (!m) continue;
    out.push(diag("go", "error", m[4]!.trim(), { file: m[1]!, line: Number(m[2]), column: m[3] ? Number(m[3]) : undefined }, cwd));
  }
  return out;
}
