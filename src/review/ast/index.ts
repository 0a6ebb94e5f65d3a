import type { FileContext } from "../context.js";
import type { Finding } from "../types.js";
import { nonNullAssertions } from "./assertions.js";
import { focusedTests } from "./focused-tests.js";
import { magicNumbers } from "./magic.js";
import { treesOf } from "./parse.js";
import { floatingPromises } from "./promises.js";
import { sqlInjection } from "./sql.js";

/**
 * Rules that read the syntax tree of the whole new file. They replace the line-based versions of the
 * same checks when the file's content is known. With a plain diff they walk each hunk's tree
 * (parse.ts) beside the line-based versions, which still run (a hunk's tree may be cut mid-statement).
 */
export { hasTree } from "./parse.js";
export { typeLevelAny } from "./type-level-any.js";

export function astTypeSafety(ctx: FileContext): Finding[] {
  return treesOf(ctx).flatMap((sf) => nonNullAssertions(ctx, sf));
}

export function astErrorHandling(ctx: FileContext): Finding[] {
  return treesOf(ctx).flatMap((sf) => floatingPromises(ctx, sf));
}

export function astSecurity(ctx: FileContext): Finding[] {
  return treesOf(ctx).flatMap((sf) => sqlInjection(ctx, sf));
}

export function astCodeQuality(ctx: FileContext): Finding[] {
  return treesOf(ctx).flatMap((sf) => magicNumbers(ctx, sf));
}

export function astTesting(ctx: FileContext): Finding[] {
  return treesOf(ctx).flatMap((sf) => focusedTests(ctx, sf));
}
