import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { CallContext } from "../session/context.js";

/**
 * The only place that reads the SDK's per-request context (`extra`): its progress token, its
 * notification sender and its abort signal. A move to the SDK's v2 packages changes this file only.
 */
export type SdkExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export function callContext(extra: SdkExtra): CallContext {
  const token = extra._meta?.progressToken;
  let n = 0;
  return {
    signal: extra.signal,
    progress:
      token === undefined
        ? undefined
        : (message: string) => {
            n++;
            extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: n, message } }).catch(() => undefined); // a client that went away must not fail the evaluation
          },
  };
}
