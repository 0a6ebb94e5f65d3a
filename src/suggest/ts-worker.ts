import { parentPort, workerData } from "node:worker_threads";
import { type TsFixOptions, typescriptFixes } from "./ts-fixes.js";

// Worker entry: the language service runs here, off the server's thread (see ts-off-thread.ts).
typescriptFixes(workerData as TsFixOptions).then(
  (result) => parentPort!.postMessage({ ok: true, result }),
  (err: unknown) => parentPort!.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) }),
);
