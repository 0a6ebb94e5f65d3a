import { astSecurity } from "../../ast/index.js";
import type { FileContext } from "../../context.js";
import type { Finding } from "../../types.js";
import { crypto } from "./crypto.js";
import { injection } from "./injection.js";
import { secrets } from "./secrets.js";

/** All security findings of a file; each carries its CWE id. */
export function security(ctx: FileContext): Finding[] {
  return [...secrets(ctx), ...injection(ctx), ...crypto(ctx), ...astSecurity(ctx)];
}
