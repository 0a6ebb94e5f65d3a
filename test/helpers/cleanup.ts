import fc from "fast-check";
import { afterAll } from "vitest";
import { removeTmpDirs } from "./repo.js";

// Property tests draw from a fixed seed, so a red run reproduces and CI stays deterministic;
// `TRM_PROP_SEED=random npm test` (or any number) explores other draws. A failure found that way
// is added to the test's `examples` once fixed.
const seed = process.env.TRM_PROP_SEED;
if (seed !== "random") fc.configureGlobal({ seed: seed ? Number(seed) : 20261123 });

// Registered before each test file's own hooks, so it runs after them (servers closed first).
afterAll(() => removeTmpDirs());
