/**
 * The public API's view of the MCP SDKs, by shape only. The package's main entry names no SDK type, so a
 * consumer that type-checks libraries (`skipLibCheck: false`) with only one SDK installed still compiles; the
 * `@receipt/collector/v1` and `@receipt/collector/v2` entries give the same functions each SDK's exact types.
 */

/** Either SDK's transport (stdio, Streamable HTTP, SSE, or an adopter's own). */
export interface TransportLike {
  start(): Promise<void>;
  send(message: unknown, options?: unknown): Promise<void>;
  close(): Promise<void>;
}

/** The SDKs' `FetchLike`: what a Streamable HTTP transport calls instead of `fetch`. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Capabilities a client declares (`ClientCapabilities` in both SDKs). */
export type ClientCapabilitiesLike = { [capability: string]: unknown };

/** A `tools/call` result (`CallToolResult` in both SDKs), as hooks and verifiers receive it. */
export type ToolResult = {
  content: { type: string; text?: string; [field: string]: unknown }[];
  structuredContent?: { [field: string]: unknown };
  isError?: boolean;
  _meta?: { [field: string]: unknown };
  [field: string]: unknown;
};

/** Options of SDK 2.x's Streamable HTTP transport (`StreamableHTTPClientTransportOptions`), as far as read here. */
export type StreamableHttpOptionsLike = { fetch?: FetchLike; [option: string]: unknown };

/**
 * Options of the SDK 2.x `Client` (`ClientOptions`) the collector reads; the rest pass through untouched, except
 * `capabilities`, which the collector's own options set.
 */
export type V2ClientOptionsLike = {
  versionNegotiation?: { mode?: "legacy" | "auto" | { pin: string }; [option: string]: unknown };
  supportedProtocolVersions?: string[];
  listChanged?: { [list: string]: unknown };
  [option: string]: unknown;
};

/** The SDK 2.x `Client` the collector builds, as far as an adopter needs it through the main entry. */
export interface V2ClientLike {
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options?: unknown,
  ): Promise<unknown>;
  listTools(params?: { cursor?: string }, options?: unknown): Promise<unknown>;
  getServerCapabilities(): object | undefined;
  close(): Promise<void>;
}
