/** What a long operation may use from the request that started it, independent of the MCP SDK. */
export interface CallContext {
  signal?: AbortSignal;
  progress?: (message: string) => void;
}
