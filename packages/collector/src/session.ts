import { capabilityPaths } from "../../../lib/contract/capabilities";
import type { AuthObserver } from "./http-auth";
import { clipPeer, peerInfo } from "./peer-info";
import type { SessionEvidence, TransportKind } from "./record-types";
import type { ProtocolDefaults } from "./sdk/session-client";
import type { SessionState } from "./session-state";
import { observeModernWire } from "./session-modern";
import { iso } from "./time";
import type { WireTap } from "./wire-tap";

export type RequiredCapabilities = { server?: string[]; client?: string[] };
const VERSION = /^\d{4}-\d{2}-\d{2}$/;
/** Recorded for a server that answered without saying who it is (e.g. a bare -32022 error). */
const UNIDENTIFIED = { name: "unknown", version: "unknown" };

/** The session as seen so far; filled by the legacy handshake listeners below or by `observeModernWire`. */
/**
 * The Session layer of one connection, filled from the wire. Legacy: what the client asked for in
 * `initialize`, what the server answered, and when `notifications/initialized` went out. Modern
 * (stateless): the version and capabilities each request carries in `_meta`, what `server/discover`
 * answered, and the version the server served a request at.
 */
export class SessionRecorder {
  readonly state: SessionState;
  /** False for a client wrapped after it connected: its handshake crossed the wire before the tap was on it. */
  private handshakeSeen = true;

  constructor(
    readonly id: string,
    tap: WireTap,
    private readonly options: {
      clientInfo: { name: string; version: string };
      transport: TransportKind;
      required: RequiredCapabilities;
      auth?: AuthObserver;
      protocol: ProtocolDefaults;
    },
  ) {
    this.state = {
      era: options.protocol.era,
      requestedVersion: options.protocol.requestedVersion,
      serverCapabilities: [],
      clientCapabilities: [],
      answered: false,
      discovered: false,
    };
    tap.onRequestSent((method, id, params) => {
      if (method !== "initialize") return;
      this.state.era = "legacy";
      if (typeof params.protocolVersion === "string") this.state.requestedVersion = params.protocolVersion;
      this.state.clientCapabilities = capabilityPaths(params.capabilities);
      tap.onResponse(id, (response) => {
        this.state.answered = true;
        const result = response.result;
        if (!result) return;
        if (typeof result.protocolVersion === "string") this.state.acceptedVersion = result.protocolVersion;
        this.state.server = peerInfo(result.serverInfo);
        this.state.serverCapabilities = capabilityPaths(result.capabilities);
      });
    });
    tap.onNotificationSent((method, _params, at) => {
      if (method === "notifications/initialized") this.state.initializedAt = at;
    });
    observeModernWire(tap, this.state);
  }

  /**
   * A client that connected before the collector wrapped it: its handshake is not observed (contract v1.2), so
   * only what the SDK kept of it is recorded — who the server said it is and its capabilities — never a version
   * or an `initializedAt` the collector did not see.
   */
  attachConnected(server: unknown, capabilities: unknown): void {
    this.handshakeSeen = false;
    this.state.answered = true;
    if (server) this.state.server = peerInfo(server);
    this.state.serverCapabilities = capabilityPaths(capabilities);
  }

  /** The record's `observed`: undefined while the collector saw the whole session (it saw the handshake). */
  observed(catalogSeen: boolean): { handshake: false; catalog?: false } | undefined {
    if (this.handshakeSeen) return undefined;
    return catalogSeen ? { handshake: false } : { handshake: false, catalog: false };
  }

  snapshot(): SessionEvidence {
    const { state, options } = this;
    const requested = VERSION.test(state.requestedVersion)
      ? state.requestedVersion
      : options.protocol.requestedVersion;
    const session: SessionEvidence = {
      id: this.id,
      client: clipPeer(options.clientInfo),
      transport: options.transport,
      protocol: {
        era: state.era,
        requestedVersion: requested,
        clientSupportedVersions: [...options.protocol.clientSupportedVersions],
      },
      capabilities: {
        server: [...state.serverCapabilities],
        client: [...state.clientCapabilities],
        required: {
          server: [...(options.required.server ?? [])],
          client: [...(options.required.client ?? [])],
        },
      },
    };
    // "absent when the server never answered": one that answered without naming itself is still there.
    const server = state.server ?? (state.answered ? UNIDENTIFIED : undefined);
    if (server) session.server = server;
    // A version that is not even a date cannot be recorded as one; leaving it out says
    // "no agreed version", which is what happened.
    if (state.acceptedVersion && VERSION.test(state.acceptedVersion))
      session.protocol.acceptedVersion = state.acceptedVersion;
    const supported = state.serverSupportedVersions?.filter((version) => VERSION.test(version));
    if (supported && supported.length > 0) session.protocol.serverSupportedVersions = supported;
    // A modern session refused by a legacy server (it does not know `server/discover`): it serves none of the
    // modern versions, the empty list the classifier reads as `session.version_unsupported` (contract rule 3).
    else if (
      state.era === "modern" &&
      state.discoverRefused &&
      session.protocol.acceptedVersion === undefined
    )
      session.protocol.serverSupportedVersions = [];
    if (state.era === "legacy" && state.initializedAt !== undefined)
      session.protocol.initializedAt = iso(state.initializedAt);
    const auth = options.auth;
    if (auth?.challenge) {
      session.auth = { challenge: { ...auth.challenge } };
      if (auth.resolvedAt) session.auth.resolvedAt = auth.resolvedAt;
    }
    return session;
  }
}
