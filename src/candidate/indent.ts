/**
 * When a hunk or a `replace` matched only after ignoring whitespace, its added lines were written in
 * the model's indentation, not the file's. This infers how the model's indentation maps onto the
 * file's from the lines that matched, and applies the same mapping to the added lines.
 */

const indentOf = (s: string) => /^[ \t]*/.exec(s)![0];

export interface Reindented {
  lines: string[];
  /** What was done, for the fuzz report; undefined when the lines were kept as sent. */
  note?: string;
}

type Mapping = { note: string; map: (indent: string) => string };

/**
 * `pairs` are [model's line, file's line] for lines that matched ignoring whitespace. `anchor(i)` is
 * the pair that added line i sits next to; it is used when no single mapping fits every pair (the
 * model's indentation was off by different amounts in different places).
 */
export function reindent(pairs: Array<[string, string]>, added: string[], anchor: (i: number) => number = (i) => Math.min(i, pairs.length - 1)): Reindented {
  const informative = pairs.filter(([m, f]) => m.trim() !== "" && f.trim() !== "");
  const sample = informative.map(([m, f]) => [indentOf(m), indentOf(f)] as const);
  if (sample.length === 0 || sample.every(([m, f]) => m === f)) return { lines: added };
  const mapping = inferMapping(sample);
  if (mapping) {
    return { lines: mapLines(added, () => mapping.map), note: `added lines re-indented (${mapping.note})` };
  }
  const lines = mapLines(added, (i) => localMap(pairs, anchor(i)));
  const changed = lines.some((l, i) => l !== added[i]);
  return changed ? { lines, note: "added lines re-indented like their neighbouring lines" } : { lines };
}

function mapLines(added: string[], mapFor: (i: number) => ((indent: string) => string) | undefined): string[] {
  return added.map((line, i) => {
    const map = mapFor(i);
    if (!map || line.trim() === "") return line;
    const ind = indentOf(line);
    return map(ind) + line.slice(ind.length);
  });
}

/** The indentation change between the model and the file at the nearest non-blank pair to `at`. */
function localMap(pairs: Array<[string, string]>, at: number): ((indent: string) => string) | undefined {
  for (let d = 0; d < pairs.length; d++) {
    for (const k of [at - d, at + d]) {
      const p = pairs[k];
      if (!p || p[0].trim() === "" || p[1].trim() === "") continue;
      const m = indentOf(p[0]);
      const f = indentOf(p[1]);
      if (m === f) return undefined;
      if (f.endsWith(m)) return (ind) => f.slice(0, f.length - m.length) + ind;
      if (m.endsWith(f)) return (ind) => (ind.startsWith(m.slice(0, m.length - f.length)) ? ind.slice(m.length - f.length) : ind);
      return undefined;
    }
  }
  return undefined;
}

function inferMapping(sample: ReadonlyArray<readonly [string, string]>): Mapping | undefined {
  const [m0, f0] = sample[0]!;
  // The file has everything one level deeper (or shallower) than the model thought.
  if (f0.endsWith(m0)) {
    const prefix = f0.slice(0, f0.length - m0.length);
    if (sample.every(([m, f]) => f === prefix + m)) {
      return { note: `prefixed ${JSON.stringify(prefix)}`, map: (ind) => prefix + ind };
    }
  }
  if (m0.endsWith(f0)) {
    const prefix = m0.slice(0, m0.length - f0.length);
    if (sample.every(([m, f]) => m === prefix + f)) {
      return {
        note: `removed leading ${JSON.stringify(prefix)}`,
        map: (ind) => (ind.startsWith(prefix) ? ind.slice(prefix.length) : ind.replace(/^[ \t]*/, "")),
      };
    }
  }
  const spacesOnly = (s: string) => /^ *$/.test(s);
  const tabsOnly = (s: string) => /^\t*$/.test(s);
  // 2-space model output in a 4-space file, and the reverse.
  if (sample.every(([m, f]) => spacesOnly(m) && spacesOnly(f))) {
    const ref = sample.find(([m]) => m.length > 0);
    if (ref && ref[1].length > 0) {
      const ratio = ref[1].length / ref[0].length;
      if (sample.every(([m, f]) => f.length === m.length * ratio)) {
        return {
          note: `${ref[0].length} -> ${ref[1].length} spaces per level`,
          map: (ind) => (spacesOnly(ind) ? " ".repeat(Math.round(ind.length * ratio)) : ind),
        };
      }
    }
  }
  if (sample.every(([m, f]) => spacesOnly(m) && tabsOnly(f))) {
    const ref = sample.find(([, f]) => f.length > 0);
    const unit = ref ? ref[0].length / ref[1].length : 0;
    if (Number.isInteger(unit) && unit > 0 && sample.every(([m, f]) => m.length === f.length * unit)) {
      return {
        note: `${unit} spaces -> tab`,
        map: (ind) => (spacesOnly(ind) ? "\t".repeat(Math.floor(ind.length / unit)) + " ".repeat(ind.length % unit) : ind),
      };
    }
  }
  if (sample.every(([m, f]) => tabsOnly(m) && spacesOnly(f))) {
    const ref = sample.find(([m]) => m.length > 0);
    const unit = ref ? ref[1].length / ref[0].length : 0;
    if (Number.isInteger(unit) && unit > 0 && sample.every(([m, f]) => f.length === m.length * unit)) {
      return { note: `tab -> ${unit} spaces`, map: (ind) => ind.replace(/\t/g, " ".repeat(unit)) };
    }
  }
  return undefined;
}
