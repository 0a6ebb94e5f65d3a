/**
 * The clamp suite the failing-first e2e tests share (failing-first, -batch, -runners): a library whose
 * `clamp` is wrong above `hi` at the baseline, the bodies of its bug, a no-op wrong fix and the right fix,
 * and the five clamp cases the runners' test files are written from.
 */
export const CLAMP_BODIES = { bug: "Math.max(lo, x)", same: "Math.max(lo, x) + 0", right: "Math.min(hi, Math.max(lo, x))" };
export const clampLib = (body: string) => `export const add = (a, b) => a + b;\nexport const clamp = (x, lo, hi) => ${body};\n`;
export const CLAMP = [
  ["inside stays", "clamp(5, 0, 10)", "5"],
  ["below rises to lo", "clamp(-1, 0, 10)", "0"],
  ["above falls to hi", "clamp(11, 0, 10)", "10"],
  ["far above (100) falls to hi", "clamp(100, 0, 10)", "10"],
  ["at hi stays", "clamp(10, 0, 10)", "10"],
] as const;
