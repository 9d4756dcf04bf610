import { capabilityPaths, withTasksFeature } from "../../../lib/contract/capabilities";
import { peerInfo } from "./peer-info";
import type { SessionState } from "./session-state";
import type { RequestId, WireResponse, WireTap } from "./wire-tap";

type Json = Record<string, unknown>;
// The modern revision's `_meta` keys, spelled out: this file also reads sessions of an agent
// that has SDK 1.x only, so it cannot load them from SDK 2.x.
const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo";
/** JSON-RPC code of "unsupported protocol version"; its data names the versions the server speaks. */
export const UNSUPPORTED_VERSION = -32022;
/** JSON-RPC's "method not found": a legacy server's answer to `server/discover`. */
export const METHOD_NOT_FOUND = -32601;
/** Requests still waiting for an answer, remembered at most (a server that never answers must not grow this). */
const MAX_PENDING = 1_000;

/**
 * The modern (2026-07-28) era has no handshake: every request carries the protocol version and the
 * client's capabilities in its `_meta`, and `server/discover` (optional) says which versions and
 * capabilities the server has. So the session is read off every request and every answer.
 */
export function observeModernWire(tap: WireTap, state: SessionState): void {
  const pending = new Map<RequestId, { method: string; version: string }>();
  tap.onRequestSent((method, id, params) => {
    const meta = params._meta as Json | undefined;
    const version = meta?.[PROTOCOL_VERSION_META_KEY];
    if (typeof version !== "string") return;
    state.era = "modern";
    state.requestedVersion = version;
    if (CLIENT_CAPABILITIES_META_KEY in (meta ?? {}))
      state.clientCapabilities = withTasksFeature(capabilityPaths(meta?.[CLIENT_CAPABILITIES_META_KEY]));
    pending.set(id, { method, version });
    if (pending.size > MAX_PENDING) pending.delete(pending.keys().next().value as RequestId);
  });
  tap.onAnyResponse((id, response) => {
    const request = pending.get(id);
    if (!request) return;
    pending.delete(id);
    answered(state, request, response);
  });
}

/** Also used for a -32022 the SDK reports after probing on a connection the tap never saw. */
export function versionRejected(state: SessionState, data: unknown, requested?: string): void {
  state.answered = true;
  const { supported, requested: named } = (data ?? {}) as { supported?: unknown; requested?: unknown };
  if (Array.isArray(supported))
    state.serverSupportedVersions = supported.filter((v): v is string => typeof v === "string");
  const version = typeof named === "string" ? named : requested;
  if (version) state.requestedVersion = version;
}

function answered(state: SessionState, request: { method: string; version: string }, response: WireResponse) {
  state.answered = true;
  if (response.error) {
    if (response.error.code === UNSUPPORTED_VERSION)
      versionRejected(state, response.error.data, request.version);
    else if (response.error.code === METHOD_NOT_FOUND && request.method === "server/discover")
      state.discoverRefused = true;
    return;
  }
  // Any result means the server served that request at the version it carried.
  state.acceptedVersion = request.version;
  const result = response.result ?? {};
  const identity = peerInfo((result._meta as Json | undefined)?.[SERVER_INFO_META_KEY]);
  if (identity) state.server = identity;
  if (request.method !== "server/discover") return;
  state.discovered = true;
  if (Array.isArray(result.supportedVersions))
    state.serverSupportedVersions = result.supportedVersions.filter(
      (v): v is string => typeof v === "string",
    );
  state.serverCapabilities = withTasksFeature(capabilityPaths(result.capabilities));
}
