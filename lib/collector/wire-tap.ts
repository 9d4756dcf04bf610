import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * Sees every JSON-RPC message of one session. The SDK has no accessor for the negotiated
 * version, the request ids it picks or the arrival time of progress, so the collector reads
 * them off the transport: `send` is wrapped, and `onmessage` is set before `client.connect`
 * (the SDK keeps a pre-set `onmessage` and calls it before its own handling).
 */
export type RequestId = string | number;
export type WireResponse = { at: number; result?: Record<string, unknown>; error?: { code: number } };
type Json = Record<string, unknown>;
type ResponseListener = (response: WireResponse) => void;
type OutgoingListener = (id: RequestId, params: Json, at: number) => void;
type NotificationListener = (method: string, params: Json, at: number) => void;

export class WireTap {
  private readonly responseListeners = new Map<RequestId, ResponseListener>();
  private readonly claims: { method: string; listener: OutgoingListener }[] = [];
  private readonly incoming = new Set<NotificationListener>();
  private readonly outgoing = new Set<NotificationListener>();
  private readonly requestListeners = new Set<
    (method: string, id: RequestId, params: Json, at: number) => void
  >();

  constructor(
    readonly transport: Transport,
    private readonly now: () => number = Date.now,
  ) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      this.observeOutgoing(message);
      return send(message, options);
    };
    // Keep a handler the caller may have set already; the SDK will chain its own after ours.
    const previous = transport.onmessage;
    transport.onmessage = (message, extra) => {
      this.observeIncoming(message);
      previous?.(message, extra);
    };
  }

  /** The next outgoing request of `method` is handed to `listener` (synchronously, as the SDK sends it). */
  claimNextRequest(method: string, listener: OutgoingListener): () => void {
    const claim = { method, listener };
    this.claims.push(claim);
    return () => {
      const index = this.claims.indexOf(claim);
      if (index >= 0) this.claims.splice(index, 1);
    };
  }

  onResponse(id: RequestId, listener: ResponseListener): void {
    this.responseListeners.set(id, listener);
  }

  /** Stops waiting for a response (a call that ended without one must not leak its listener). */
  forgetResponse(id: RequestId): void {
    this.responseListeners.delete(id);
  }

  onRequestSent(listener: (method: string, id: RequestId, params: Json, at: number) => void): () => void {
    this.requestListeners.add(listener);
    return () => {
      this.requestListeners.delete(listener);
    };
  }

  onNotification(listener: NotificationListener): () => void {
    this.incoming.add(listener);
    return () => {
      this.incoming.delete(listener);
    };
  }

  onNotificationSent(listener: NotificationListener): () => void {
    this.outgoing.add(listener);
    return () => {
      this.outgoing.delete(listener);
    };
  }

  private observeOutgoing(message: JSONRPCMessage): void {
    const at = this.now();
    const m = message as Json;
    if (typeof m.method !== "string") return;
    const params = (m.params ?? {}) as Json;
    if ("id" in m && (typeof m.id === "string" || typeof m.id === "number")) {
      const id = m.id;
      for (const listener of this.requestListeners) listener(m.method, id, params, at);
      const index = this.claims.findIndex((claim) => claim.method === m.method);
      const claim = index >= 0 ? this.claims.splice(index, 1)[0] : undefined;
      claim?.listener(id, params, at);
      return;
    }
    for (const listener of this.outgoing) listener(m.method, params, at);
  }

  private observeIncoming(message: JSONRPCMessage): void {
    const at = this.now();
    const m = message as Json;
    if (typeof m.method === "string") {
      // Requests from the server (sampling, roots…) carry an id too; the collector only
      // needs notifications, and the SDK answers the requests itself.
      if (!("id" in m))
        for (const listener of this.incoming) listener(m.method, (m.params ?? {}) as Json, at);
      return;
    }
    if (!("id" in m) || (typeof m.id !== "string" && typeof m.id !== "number")) return;
    const listener = this.responseListeners.get(m.id);
    if (!listener) return;
    this.responseListeners.delete(m.id);
    const error = m.error as { code?: unknown } | undefined;
    if (error && typeof error.code === "number") listener({ at, error: { code: error.code } });
    else listener({ at, result: (m.result ?? {}) as Json });
  }
}
