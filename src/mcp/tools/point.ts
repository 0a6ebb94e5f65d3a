import { z } from "zod";

/**
 * A point of a session's history (baseline|best|current|<step>|<checkpoint>), an input of the read
 * tools and trm_diff. Models often send a step as a number: it is accepted as its string. Advertised as
 * a string, so it costs no schema tokens.
 */
export const pointIn = z.preprocess((v) => (typeof v === "number" && Number.isSafeInteger(v) ? String(v) : v), z.string());
