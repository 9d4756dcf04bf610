import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { TransportKind } from "../record-types";
import type { SessionClient, TaskStreamMessage, ToolResult } from "./session-client";

/** SDK 1.x speaks the legacy revisions only (up to 2025-11-25): always the initialize handshake. */
export const V1_PROTOCOL = {
  era: "legacy" as const,
  requestedVersion: LATEST_PROTOCOL_VERSION,
  clientSupportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
};

export function v1SessionClient(client: Client): SessionClient {
  return {
    sdk: "v1",
    listToolsPage: (cursor) => client.listTools(cursor === undefined ? undefined : { cursor }),
    callTool: async (params, options) => (await client.callTool(params, undefined, options)) as ToolResult,
    tasks: {
      callToolStream: (params, options) =>
        client.experimental.tasks.callToolStream(params, undefined, {
          ...options,
          task: {},
        }) as AsyncGenerator<TaskStreamMessage>,
      cancelTask: (taskId, options) => client.experimental.tasks.cancelTask(taskId, options),
    },
    isConnectionClosed: (error) => error instanceof McpError && error.code === ErrorCode.ConnectionClosed,
    serverCapabilities: () => client.getServerCapabilities(),
    close: () => client.close(),
  };
}

export function v1TransportKind(transport: Transport): TransportKind {
  if (transport instanceof StdioClientTransport) return "stdio";
  if (transport instanceof StreamableHTTPClientTransport) return "streamable-http";
  if (transport instanceof SSEClientTransport) return "sse";
  return "other";
}
