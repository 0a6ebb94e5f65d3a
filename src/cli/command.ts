import type { OptionsSpec, Parsed } from "./args.js";
import type { Paint } from "./format.js";

/** What a command may use of the outside world: output streams, colour, the directory it runs in. */
export interface Io {
  /** Bytes are written as they are: a patch may hold text that is not UTF-8. */
  out(text: string | Uint8Array): void;
  err(text: string): void;
  paint: Paint;
  color: boolean;
  cwd: string;
}

export interface Command {
  name: string;
  /** One line for the program's help. */
  summary: string;
  /** Usage line(s), e.g. "code-trm log <id> [--json]". */
  usage: string;
  /** Paragraphs after the usage in the command's help. */
  description: string;
  options: OptionsSpec;
  /** Returns the exit code (0 when omitted). */
  run(args: Parsed, io: Io): Promise<number | undefined>;
}

/** Stable JSON for scripts: two-space indentation, one trailing newline. */
export function printJson(io: Io, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}
