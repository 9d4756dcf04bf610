import type { TransportKind } from "../record-types";
import { isConnectionClosedError, transportKindOf } from "./duck-typing";
import { optionalPeer, peerMissing } from "./optional-peer";
import type { TransportLike } from "./structural";
import type {
  CallToolParams,
  ProtocolDefaults,
  SdkCallOptions,
  SessionClient,
  TaskStreamMessage,
  ToolResult,
  ToolsPage,
} from "./session-client";

const PACKAGE = "@modelcontextprotocol/sdk";

/** What the collector builds with SDK 1.x, loaded once and only when it is installed. */
const runtime = await optionalPeer(PACKAGE, async () => {
  const [client, http, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return {
    Client: client.Client,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    LATEST_PROTOCOL_VERSION: types.LATEST_PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS: types.SUPPORTED_PROTOCOL_VERSIONS,
  };
});

export function sdkV1(): NonNullable<typeof runtime> {
  if (!runtime) throw peerMissing(PACKAGE, "1.x");
  return runtime;
}

/** SDK 1.x speaks the legacy revisions only (up to 2025-11-25): always the initialize handshake. */
export function v1Protocol(): ProtocolDefaults {
  const { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } = sdkV1();
  return {
    era: "legacy",
    requestedVersion: LATEST_PROTOCOL_VERSION,
    clientSupportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
  };
}

/**
 * The SDK 1.x `Client` as far as the collector uses it. Structural, not the class: an adopter's
 * client built from another copy of the SDK than the collector's must fit (a class with private
 * members only matches its own declaration).
 */
export interface V1ClientLike {
  connect(transport: TransportLike, options?: { timeout?: number }): Promise<void>;
  listTools(params?: { cursor?: string }): Promise<unknown>;
  callTool(params: CallToolParams, resultSchema?: undefined, options?: SdkCallOptions): Promise<unknown>;
  readonly experimental: {
    readonly tasks: {
      callToolStream(
        params: CallToolParams,
        resultSchema?: undefined,
        options?: SdkCallOptions & { task: Record<string, unknown> },
      ): AsyncGenerator<unknown>;
      cancelTask(taskId: string, options?: { timeout: number }): Promise<unknown>;
    };
  };
  getServerCapabilities(): object | undefined;
  close(): Promise<void>;
}

export function v1SessionClient(client: V1ClientLike): SessionClient {
  // The SDK's own method, taken before the collector records direct calls (recordDirectCalls replaces it).
  const callTool = client.callTool.bind(client);
  return {
    sdk: "v1",
    listToolsPage: async (cursor) =>
      (await client.listTools(cursor === undefined ? undefined : { cursor })) as ToolsPage,
    callTool: async (params, options) => (await callTool(params, undefined, options)) as ToolResult,
    tasks: {
      callToolStream: (params, options) =>
        client.experimental.tasks.callToolStream(params, undefined, {
          ...options,
          task: {},
        }) as AsyncGenerator<TaskStreamMessage>,
      cancelTask: (taskId, options) => client.experimental.tasks.cancelTask(taskId, options),
    },
    isConnectionClosed: isConnectionClosedError,
    serverCapabilities: () => client.getServerCapabilities() as Record<string, unknown> | undefined,
    close: () => client.close(),
  };
}

export function v1TransportKind(transport: TransportLike): TransportKind {
  return transportKindOf(transport);
}
