import type { ToolResult } from "./structural";

export type { ToolResult };

/**
 * What the collector needs from an MCP client, whichever SDK built it (1.x `@modelcontextprotocol/sdk`
 * or 2.x `@modelcontextprotocol/client`). The evidence itself always comes from the wire tap;
 * the SDK only puts messages on the wire and hands results to the caller's hooks.
 */
/** What a client offers before anything crossed the wire; the wire then says what the session is. */
export type ProtocolDefaults = {
  era: "legacy" | "modern";
  requestedVersion: string;
  clientSupportedVersions: string[];
};
export type ToolListing = {
  name: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  execution?: unknown;
};
/** One raw `tools/list` page; `ttlMs` is the modern era's cache hint, when the server sent one. */
export type ToolsPage = { tools: ToolListing[]; nextCursor?: string; ttlMs?: unknown };
export type CallToolParams = { name: string; arguments?: Record<string, unknown> };
export type SdkCallOptions = {
  signal: AbortSignal;
  timeout: number;
  /** Passing it makes the SDK send a progressToken (the request id); the tap records the entries. */
  onprogress: () => void;
};
export type TaskStreamMessage =
  | { type: "taskStatus"; task: Record<string, unknown> }
  | { type: "result"; result: ToolResult }
  | { type: "error"; error: unknown };

export interface SessionClient {
  readonly sdk: "v1" | "v2";
  listToolsPage(cursor?: string): Promise<ToolsPage>;
  callTool(params: CallToolParams, options: SdkCallOptions): Promise<ToolResult>;
  /** Task-augmented calls; absent where the SDK has no task runtime (2.x has none for the modern era). */
  tasks?: {
    callToolStream(params: CallToolParams, options: SdkCallOptions): AsyncGenerator<TaskStreamMessage>;
    cancelTask(taskId: string, options: { timeout: number }): Promise<unknown>;
  };
  /** The SDK's own error for "the connection closed under this request" (not a server answer). */
  isConnectionClosed(error: unknown): boolean;
  serverCapabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}
