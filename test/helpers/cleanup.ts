import { afterAll } from "vitest";
import { removeTmpDirs } from "./repo.js";

// Registered before each test file's own hooks, so it runs after them (servers closed first).
afterAll(() => removeTmpDirs());
