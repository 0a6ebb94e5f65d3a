/**
 * Work under way, counted per key: requests the server is answering (one key for all), evaluations per
 * folder (warm-shells.ts). Work that may wait (shells started ahead for the next step) is done only
 * while none is: a request that arrives right after a reply must not wait for it.
 */
export class UnderWay {
  private readonly counts = new Map<string, number>();

  /** Counts one under `key`; the returned function ends it (once, however often it is called). */
  begin(key = ""): () => void {
    this.counts.set(key, this.count(key) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = this.count(key) - 1;
      if (n > 0) this.counts.set(key, n);
      else this.counts.delete(key);
    };
  }

  count(key = ""): number {
    return this.counts.get(key) ?? 0;
  }
}

const requests = new UnderWay();

/** Marks a request under way; call the returned function once it is answered. */
export function beginRequest(): () => void {
  return requests.begin();
}

export function requestsInFlight(): number {
  return requests.count();
}
