/**
 * Stryker's own mutators (@stryker-mutator/instrumenter): the mutants of the given lines, each a
 * replacement at a location. Only the mutants are used, not the instrumented copy (mutant schemata, one
 * copy switched by __STRYKER_ACTIVE_MUTANT__): a switch read from the environment never reaches code the
 * tests run with an environment of their own, and its mutants "survive" (run-mutants.ts writes each
 * mutant into its file instead). Loaded on first use: it brings Babel.
 */
import type { RawMutant } from "./choose.js";

export interface Instrumented {
  mutants: (RawMutant & { fileName: string })[];
}

const silent = {
  isDebugEnabled: () => false,
  isTraceEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => false,
  isErrorEnabled: () => false,
  isFatalEnabled: () => false,
  debug() {},
  trace() {},
  info() {},
  warn() {},
  error() {},
  fatal() {},
};

/**
 * The mutants of the given 1-based lines of each of `files` (name → text). A file the parser refuses is
 * left out (its name in `failed`).
 */
export async function instrument(files: Map<string, { content: string; lines: number[] }>): Promise<Instrumented & { failed: string[] }> {
  const { createInstrumenter } = await import("@stryker-mutator/instrumenter");
  // The package is built for its own dependency injector: the three values it asks for, given directly.
  const values: Record<string, unknown> = { logger: silent };
  const injector = {
    provideValue(k: string, v: unknown) {
      values[k] = v;
      return injector;
    },
    injectClass(C: { new (...a: unknown[]): unknown; inject: string[] }) {
      return new C(...C.inject.map((t) => values[t]));
    },
  };
  const instrumenter = createInstrumenter(injector as unknown as Parameters<typeof createInstrumenter>[0]);
  const input = (names: string[]) =>
    names.map((name) => {
      const f = files.get(name)!;
      return { name, content: f.content, mutate: f.lines.map((l) => ({ start: { line: l - 1, column: 0 }, end: { line: l - 1, column: 100_000 } })) };
    });
  const options = { plugins: null, excludedMutations: [], ignorers: [], noHeader: false };
  // One call for every file: mutant ids count up across the call, so two calls would reuse them.
  let names = [...files.keys()];
  const failed: string[] = [];
  let r: Awaited<ReturnType<typeof instrumenter.instrument>> | undefined;
  try {
    r = await instrumenter.instrument(input(names), options);
  } catch {
    for (const n of names) await instrumenter.instrument(input([n]), options).catch(() => failed.push(n));
    names = names.filter((n) => !failed.includes(n));
    r = names.length > 0 ? await instrumenter.instrument(input(names), options) : undefined;
  }
  const out: Instrumented & { failed: string[] } = { mutants: [], failed };
  for (const m of r?.mutants ?? [])
    out.mutants.push({ id: m.id, fileName: m.fileName, mutatorName: m.mutatorName, replacement: m.replacement, location: m.location });
  return out;
}
