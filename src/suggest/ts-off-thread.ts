import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { type TsFixOptions, type TsFixResult, typescriptFixes } from "./ts-fixes.js";

/** Time the worker gets beyond the service's own budget before it is terminated. */
const GRACE_MS = 10_000;

/**
 * The TypeScript language service is synchronous and can take seconds on a large project. Run on the
 * server's thread it would stall every other session: no progress notifications, no cancellation,
 * no answers. So it runs in a worker thread, which is terminated on cancellation or past its budget.
 */
export function typescriptFixesOffThread(opts: TsFixOptions, signal?: AbortSignal): Promise<TsFixResult> {
  const url = new URL("./ts-worker.js", import.meta.url);
  // Running from the TypeScript sources (the unit tests) there is no compiled worker: stay on this thread.
  if (!existsSync(fileURLToPath(url))) return typescriptFixes(opts);
  return new Promise((resolve, reject) => {
    const worker = new Worker(url, { workerData: opts });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      void worker.terminate();
      fn();
    };
    const budget = (opts.budgetMs ?? 20_000) + GRACE_MS;
    const timer = setTimeout(() => finish(() => reject(new Error(`the TypeScript language service did not finish within ${budget} ms`))), budget);
    const onAbort = () => finish(() => reject(new Error("cancelled")));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (m: { ok: true; result: TsFixResult } | { ok: false; error: string }) =>
      finish(() => (m.ok ? resolve(m.result) : reject(new Error(m.error)))),
    );
    worker.once("error", (err) => finish(() => reject(err)));
    worker.once("exit", (code) => finish(() => reject(new Error(`the TypeScript worker exited (${code}) without an answer`))));
  });
}
