import fc from "fast-check";
import { afterAll } from "vitest";
import { removeTmpDirs, tmpDir } from "./repo.js";

// Property tests draw from a fixed seed, so a red run reproduces and CI stays deterministic;
// `TRM_PROP_SEED=random npm test` (or any number) explores other draws. A failure found that way
// is added to the test's `examples` once fixed.
const seed = process.env.TRM_PROP_SEED;
if (seed !== "random") fc.configureGlobal({ seed: seed ? Number(seed) : 20261123 });

// code-trm keeps worktrees, scratch files and the session index in its state folder: code of the server
// run inside a test file (review, suggest, sessions) puts them in a folder of the file's own, removed
// with its other temporary folders, never in the user's ~/.local/state.
process.env.CODE_TRM_STATE_DIR ??= tmpDir("trm-state-");

// Registered before each test file's own hooks, so it runs after them (servers closed first).
afterAll(() => removeTmpDirs());
