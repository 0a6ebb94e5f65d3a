/**
 * An error caused by the caller's input or by the state of their repository. It is reported to the
 * client as a tool result with `isError: true`; `hint` tells the client what to do instead.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "UserError";
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
