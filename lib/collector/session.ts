import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { capabilityPaths } from "./capabilities";
import type { AuthObserver } from "./http-auth";
import type { SessionEvidence, TransportKind } from "./record-types";
import { iso } from "./time";
import type { WireTap } from "./wire-tap";

export type RequiredCapabilities = { server?: string[]; client?: string[] };
const VERSION = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The Session layer of one connection, filled from the wire: what the client asked for in
 * `initialize`, what the server answered, and when `notifications/initialized` went out.
 */
export class SessionRecorder {
  private requestedVersion?: string;
  private answeredVersion?: string;
  private server?: { name: string; version: string };
  private serverCapabilities: string[] = [];
  private clientCapabilities: string[] = [];
  private initializedAt?: number;
  /** Set when the server answered `initialize` at all (result or error). */
  answered = false;

  constructor(
    readonly id: string,
    tap: WireTap,
    private readonly options: {
      clientInfo: { name: string; version: string };
      transport: TransportKind;
      required: RequiredCapabilities;
      auth?: AuthObserver;
      clientSupportedVersions?: string[];
    },
  ) {
    tap.onRequestSent((method, id, params) => {
      if (method !== "initialize") return;
      if (typeof params.protocolVersion === "string") this.requestedVersion = params.protocolVersion;
      this.clientCapabilities = capabilityPaths(params.capabilities);
      tap.onResponse(id, (response) => {
        this.answered = true;
        const result = response.result;
        if (!result) return;
        if (typeof result.protocolVersion === "string") this.answeredVersion = result.protocolVersion;
        this.server = serverInfo(result.serverInfo);
        this.serverCapabilities = capabilityPaths(result.capabilities);
      });
    });
    tap.onNotificationSent((method, _params, at) => {
      if (method === "notifications/initialized") this.initializedAt = at;
    });
  }

  snapshot(): SessionEvidence {
    const supported = this.options.clientSupportedVersions ?? [...SUPPORTED_PROTOCOL_VERSIONS];
    const requested = this.requestedVersion ?? LATEST_PROTOCOL_VERSION;
    const session: SessionEvidence = {
      id: this.id,
      client: clip(this.options.clientInfo),
      transport: this.options.transport,
      protocol: {
        era: "legacy",
        requestedVersion: VERSION.test(requested) ? requested : LATEST_PROTOCOL_VERSION,
        clientSupportedVersions: supported,
      },
      capabilities: {
        server: [...this.serverCapabilities],
        client: [...this.clientCapabilities],
        required: {
          server: [...(this.options.required.server ?? [])],
          client: [...(this.options.required.client ?? [])],
        },
      },
    };
    if (this.server) session.server = this.server;
    // A version that is not even a date cannot be recorded as one; leaving it out says
    // "no agreed version", which is what happened.
    if (this.answeredVersion && VERSION.test(this.answeredVersion))
      session.protocol.acceptedVersion = this.answeredVersion;
    if (this.initializedAt !== undefined) session.protocol.initializedAt = iso(this.initializedAt);
    const auth = this.options.auth;
    if (auth?.challenge) {
      session.auth = { challenge: { ...auth.challenge } };
      if (auth.resolvedAt) session.auth.resolvedAt = auth.resolvedAt;
    }
    return session;
  }
}

function serverInfo(value: unknown): { name: string; version: string } | undefined {
  if (!value || typeof value !== "object") return undefined;
  const info = value as { name?: unknown; version?: unknown };
  return clip({
    name: typeof info.name === "string" && info.name ? info.name : "unknown",
    version: typeof info.version === "string" && info.version ? info.version : "unknown",
  });
}

function clip(info: { name: string; version: string }): { name: string; version: string } {
  return { name: info.name.slice(0, 128), version: info.version.slice(0, 64) };
}
