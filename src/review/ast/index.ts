import type { FileContext } from "../context.js";
import type { Finding } from "../types.js";
import { nonNullAssertions } from "./assertions.js";
import { focusedTests } from "./focused-tests.js";
import { magicNumbers } from "./magic.js";
import { sourceFileOf } from "./parse.js";
import { floatingPromises } from "./promises.js";
import { sqlInjection } from "./sql.js";

/**
 * Rules that read the syntax tree of the whole new file. They replace the line-based versions of the
 * same checks when the file's content is known; a plain diff keeps the hunk-level rules.
 */
export { hasTree } from "./parse.js";

export function astTypeSafety(ctx: FileContext): Finding[] {
  const sf = sourceFileOf(ctx);
  return sf ? nonNullAssertions(ctx, sf) : [];
}

export function astErrorHandling(ctx: FileContext): Finding[] {
  const sf = sourceFileOf(ctx);
  return sf ? floatingPromises(ctx, sf) : [];
}

export function astSecurity(ctx: FileContext): Finding[] {
  const sf = sourceFileOf(ctx);
  return sf ? sqlInjection(ctx, sf) : [];
}

export function astCodeQuality(ctx: FileContext): Finding[] {
  const sf = sourceFileOf(ctx);
  return sf ? magicNumbers(ctx, sf) : [];
}

export function astTesting(ctx: FileContext): Finding[] {
  const sf = sourceFileOf(ctx);
  return sf ? focusedTests(ctx, sf) : [];
}
