/**
 * Requests the server is answering now. Work that may wait (shells started ahead for the next step,
 * warm-shells.ts) is done only while none is: a request that arrives right after a reply must not wait
 * for it.
 */
let inFlight = 0;

/** Marks a request under way; call the returned function once it is answered. */
export function beginRequest(): () => void {
  inFlight++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    inFlight--;
  };
}

export function requestsInFlight(): number {
  return inFlight;
}
