// Undo and restore on a 5,000-file repository at 5 and at 50 steps: the time must not grow with the
// number of steps. Run: npm run build && node bench/history.mjs
import { rmSync } from "node:fs";
import { restorePoint, saveCheckpoint, undo } from "../dist/session/history.js";
import { startSession } from "../dist/session/start.js";
import { makeRepo, median } from "./generated-repo.mjs";

const FILES = 5000;

const repo = makeRepo(FILES, { prefix: "trm-bench-hist-" });

async function measure(steps) {
  const { session } = await startSession({ repoPath: repo, testCmd: "true" }, {});
  await saveCheckpoint(session, { name: "start" });
  for (let i = 0; i < steps; i++) {
    // Every step edits the same file, so the points compared differ by the same amount at 5 and at 50
    // steps: what is measured is the cost of the history's length, not of a bigger difference.
    await session.submit(
      { candidate: { mode: "files", files: [{ path: "src/m0/f0.js", content: `export const v0 = -${i + 1};\n` }] }, rationale: `step ${i}` },
      {},
    );
  }
  const undos = [];
  const restores = [];
  for (let r = 0; r < 5; r++) {
    let t = performance.now();
    await undo(session);
    undos.push(performance.now() - t);
    await saveCheckpoint(session, { name: `here${r}` });
    t = performance.now();
    await restorePoint(session, "start");
    restores.push(performance.now() - t);
    await restorePoint(session, `here${r}`); // back to where we were, for the next round
  }
  await session.end(true);
  return { undo: median(undos), restore: median(restores) };
}

for (const steps of [5, 50]) {
  const m = await measure(steps);
  console.log(`${String(steps).padStart(2)} steps: undo median ${m.undo.toFixed(1)} ms, restore checkpoint median ${m.restore.toFixed(1)} ms (${FILES} files)`);
}
rmSync(repo, { recursive: true, force: true });
