/**
 * A line diff for previews and token estimates (the `diff` package is a dev dependency only). Myers'
 * algorithm after trimming the common prefix and suffix; past `maxEdits` differences the middle is
 * reported as one replaced block, which is still a correct (if coarse) answer.
 */
export interface Region {
  /** 0-based, half-open ranges: a[aStart, aEnd) was replaced by b[bStart, bEnd). */
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

function intern(a: string[], b: string[]): [Int32Array, Int32Array] {
  const ids = new Map<string, number>();
  const id = (s: string) => {
    let v = ids.get(s);
    if (v === undefined) {
      v = ids.size;
      ids.set(s, v);
    }
    return v;
  };
  return [Int32Array.from(a, id), Int32Array.from(b, id)];
}

/** Marks the lines of a and b that the shortest edit script keeps, or returns null past maxD edits. */
function myersKeep(a: Int32Array, b: Int32Array, maxD: number): [Uint8Array, Uint8Array] | null {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, maxD);
  const off = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= limit && found < 0; d++) {
    const vd = new Int32Array(2 * d + 1);
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      vd[k + d] = x;
      if (x >= n && y >= m) found = d;
    }
    trace.push(vd);
  }
  if (found < 0) return null;
  const keepA = new Uint8Array(n);
  const keepB = new Uint8Array(m);
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d - 1]!;
    const at = (k: number) => prev[k + d - 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      keepA[x] = 1;
      keepB[y] = 1;
    }
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    keepA[x] = 1;
    keepB[y] = 1;
  }
  return [keepA, keepB];
}

export function diffRegions(a: string[], b: string[], maxEdits = 2000): Region[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  if (am.length === 0 && bm.length === 0) return [];
  if (am.length === 0 || bm.length === 0) return [{ aStart: pre, aEnd: pre + am.length, bStart: pre, bEnd: pre + bm.length }];
  const keep = myersKeep(...intern(am, bm), maxEdits);
  if (!keep) return [{ aStart: pre, aEnd: pre + am.length, bStart: pre, bEnd: pre + bm.length }];
  const [ka, kb] = keep;
  const regions: Region[] = [];
  let i = 0;
  let j = 0;
  while (i < am.length || j < bm.length) {
    if (i < am.length && j < bm.length && ka[i] && kb[j]) {
      i++;
      j++;
      continue;
    }
    const r = { aStart: pre + i, aEnd: 0, bStart: pre + j, bEnd: 0 };
    while (i < am.length && !ka[i]) i++;
    while (j < bm.length && !kb[j]) j++;
    r.aEnd = pre + i;
    r.bEnd = pre + j;
    regions.push(r);
  }
  return regions;
}
