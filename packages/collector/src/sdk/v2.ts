import type { Client, ClientOptions } from "@modelcontextprotocol/client";
import type { TransportKind } from "../record-types";
import { isConnectionClosedError, transportKindOf } from "./duck-typing";
import { optionalPeer, peerMissing } from "./optional-peer";
import type { ProtocolDefaults, SessionClient, ToolResult } from "./session-client";

const PACKAGE = "@modelcontextprotocol/client";

/** What the collector builds with SDK 2.x, loaded once and only when it is installed. */
const runtime = await optionalPeer(PACKAGE, async () => {
  const sdk = await import("@modelcontextprotocol/client");
  return {
    Client: sdk.Client,
    StreamableHTTPClientTransport: sdk.StreamableHTTPClientTransport,
    LATEST_PROTOCOL_VERSION: sdk.LATEST_PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS: sdk.SUPPORTED_PROTOCOL_VERSIONS,
  };
});

export function sdkV2(): NonNullable<typeof runtime> {
  if (!runtime) throw peerMissing(PACKAGE, "2.x");
  return runtime;
}

/**
 * The first (and, in SDK 2.4.0, only) modern revision. The SDK keeps its list of modern versions
 * internal (it exports only the legacy `SUPPORTED_PROTOCOL_VERSIONS`), so it is spelled out here.
 */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";
const isModern = (version: string) => version >= MODERN_PROTOCOL_VERSION;

/**
 * What a 2.x client configured with `options` offers before anything crossed the wire, mirroring
 * the SDK's own negotiation plan: `'legacy'` (the SDK default) is the plain initialize handshake,
 * `{ pin }` speaks exactly that modern revision, `'auto'` probes with the modern revisions and may
 * fall back to the legacy ones. The wire then says which era the session really is.
 */
export function v2Protocol(options: ClientOptions): ProtocolDefaults {
  const { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } = sdkV2();
  const mode = options.versionNegotiation?.mode ?? "legacy";
  const explicit = options.supportedProtocolVersions;
  const legacy = (explicit ?? [...SUPPORTED_PROTOCOL_VERSIONS]).filter((version) => !isModern(version));
  if (mode === "legacy")
    return {
      era: "legacy",
      requestedVersion: legacy[0] ?? LATEST_PROTOCOL_VERSION,
      clientSupportedVersions: legacy,
    };
  if (typeof mode === "object")
    return { era: "modern", requestedVersion: mode.pin, clientSupportedVersions: [mode.pin] };
  const explicitModern = (explicit ?? []).filter(isModern);
  const modern = explicitModern.length > 0 ? explicitModern : [MODERN_PROTOCOL_VERSION];
  // Without an explicit list the SDK may always fall back; with one, only to the legacy versions it names.
  const fallback = explicit ? legacy : [...SUPPORTED_PROTOCOL_VERSIONS];
  return {
    era: "modern",
    requestedVersion: modern[0] as string,
    clientSupportedVersions: [...modern, ...fallback],
  };
}

export function v2SessionClient(client: Client): SessionClient {
  // The SDK's own method, taken before the collector records direct calls (recordDirectCalls replaces it).
  const callTool = client.callTool.bind(client);
  return {
    sdk: "v2",
    // Raw pages: the 2.x `listTools()` aggregates every page itself, which would hide the page count.
    listToolsPage: (cursor) =>
      client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }),
    callTool: async (params, options) => (await callTool(params, options)) as unknown as ToolResult,
    isConnectionClosed: isConnectionClosedError,
    serverCapabilities: () => client.getServerCapabilities() as Record<string, unknown> | undefined,
    close: () => client.close(),
  };
}

export function v2TransportKind(transport: object): TransportKind {
  return transportKindOf(transport);
}
