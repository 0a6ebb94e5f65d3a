/**
 * A small argument parser for the command line. Node's util.parseArgs would do most of it, but its
 * messages talk about its own API; people need "unknown option --x; see code-trm log --help".
 */

/** Wrong use of the command line: reported with exit code 2 and a pointer to --help. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

export interface OptionSpec {
  type: "boolean" | "string";
  short?: string;
  /** Shown in the help text, e.g. "<days>". */
  value?: string;
  help: string;
}

export type OptionsSpec = Record<string, OptionSpec>;

export interface Parsed {
  positionals: string[];
  /** Arguments after `--` (e.g. paths for diff), never read as options. */
  rest: string[];
  flags: Record<string, string | boolean | undefined>;
}

/** Options every command accepts. */
export const COMMON_OPTIONS: OptionsSpec = {
  help: { type: "boolean", short: "h", help: "show this help" },
  "no-color": { type: "boolean", help: "no colour even on a terminal (NO_COLOR=1 does the same)" },
};

export function parseArgv(argv: string[], spec: OptionsSpec, command?: string): Parsed {
  const all = { ...COMMON_OPTIONS, ...spec };
  const byShort = new Map(Object.entries(all).flatMap(([name, o]) => (o.short ? [[o.short, name] as const] : [])));
  const out: Parsed = { positionals: [], rest: [], flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      out.rest = argv.slice(i + 1);
      break;
    }
    if (!a.startsWith("-") || a === "-") {
      out.positionals.push(a);
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      inline = eq < 0 ? undefined : a.slice(eq + 1);
    } else {
      const short = a.slice(1);
      const long = byShort.get(short);
      if (!long) throw new UsageError(`unknown option ${a}`, command);
      name = long;
    }
    const opt = all[name];
    if (!opt) throw new UsageError(`unknown option --${name}`, command);
    if (opt.type === "boolean") {
      if (inline !== undefined) throw new UsageError(`option --${name} takes no value`, command);
      out.flags[name] = true;
      continue;
    }
    const value = inline ?? argv[i + 1];
    // A following option is not a value: `--repo --json` is a forgotten path, not a repo named "--json".
    if (value === undefined || (inline === undefined && value.startsWith("-") && value !== "-")) {
      throw new UsageError(`option --${name} needs a value ${opt.value ?? ""}`.trimEnd(), command);
    }
    if (inline === undefined) i++;
    out.flags[name] = value;
  }
  return out;
}

/** True when -h/--help appears before `--`: help wins over every other check of the arguments. */
export function wantsHelp(argv: string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "-h" || a === "--help") return true;
  }
  return false;
}

export function expectPositionals(p: Parsed, min: number, max: number, command: string, names: string): string[] {
  if (p.positionals.length < min) throw new UsageError(`missing ${names}`, command);
  if (p.positionals.length > max) throw new UsageError(`unexpected argument ${JSON.stringify(p.positionals[max])}`, command);
  return p.positionals;
}

export function flagString(p: Parsed, name: string): string | undefined {
  const v = p.flags[name];
  return typeof v === "string" ? v : undefined;
}

export function flagBool(p: Parsed, name: string): boolean {
  return p.flags[name] === true;
}

/** Renders the options part of a help text from the same spec the parser uses. */
export function optionsHelp(spec: OptionsSpec): string {
  const rows = Object.entries({ ...spec, ...COMMON_OPTIONS }).map(
    ([name, o]) => [`${o.short ? `-${o.short}, ` : "    "}--${name}${o.value ? ` ${o.value}` : ""}`, o.help] as const,
  );
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([l, h]) => `  ${l.padEnd(w)}  ${h}`).join("\n");
}
