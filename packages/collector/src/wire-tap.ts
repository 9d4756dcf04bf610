/**
 * Sees every JSON-RPC message of one session. The SDK has no accessor for the negotiated
 * version, the request ids it picks or the arrival time of progress, so the collector reads
 * them off the transport: `send` is wrapped, and `onmessage` becomes an accessor that observes
 * every incoming message whoever installs the handler. (The v2 SDK swaps in its own handler
 * while it probes with `server/discover`, and both SDKs chain a pre-set handler inside theirs:
 * a message seen twice on that chain is observed once.)
 *
 * Structural types only, so the same tap serves SDK 1.x and 2.x transports.
 */
export type RequestId = string | number;
export type WireError = { code: number; data?: unknown };
export type WireResponse = { at: number; result?: Record<string, unknown>; error?: WireError };
export type TappableTransport = {
  send(message: never, options?: never): Promise<void>;
  onmessage?: ((message: never, extra?: never) => void) | undefined;
};
type Json = Record<string, unknown>;
type Handler = (message: unknown, extra?: unknown) => void;
type ResponseListener = (response: WireResponse) => void;
type OutgoingListener = (id: RequestId, params: Json, at: number) => void;
type NotificationListener = (method: string, params: Json, at: number) => void;
type RequestListener = (method: string, id: RequestId, params: Json, at: number) => void;

export class WireTap {
  private readonly responseListeners = new Map<RequestId, ResponseListener>();
  private readonly anyResponse = new Set<(id: RequestId, response: WireResponse) => void>();
  private readonly claims: {
    method: string;
    listener: OutgoingListener;
    match?: (params: Json) => boolean;
  }[] = [];
  private readonly incoming = new Set<NotificationListener>();
  private readonly outgoing = new Set<NotificationListener>();
  private readonly requestListeners = new Set<RequestListener>();
  private readonly observed = new WeakSet<object>();
  /** By method: told when sending a message of it fails (an HTTP transport's error carries the status). */
  private readonly failureListeners = new Map<string, Set<(error: unknown) => void>>();

  constructor(
    readonly transport: TappableTransport,
    private readonly now: () => number = Date.now,
  ) {
    const target = transport as unknown as { send: (message: unknown, options?: unknown) => Promise<void> };
    const send = target.send.bind(transport);
    target.send = (message, options) => {
      const at = this.now();
      let sent: Promise<void>;
      try {
        sent = send(message, options);
      } finally {
        // Observed once the transport has it (a pipe's write is issued synchronously), so what the collector records
        // of a call does not hold its request back; still before any answer, which is read in a later task.
        this.observeOutgoing(message, at);
      }
      const method = (message as Json | undefined)?.method;
      const failed = typeof method === "string" ? this.failureListeners.get(method) : undefined;
      if (failed !== undefined)
        sent.catch((error: unknown) => {
          for (const listener of failed) listener(error);
        });
      return sent;
    };
    this.interceptIncoming(transport as unknown as { onmessage?: Handler });
  }

  /** The next outgoing request of `method` (that `match` accepts) is handed to `listener`, as the SDK sends it. */
  claimNextRequest(
    method: string,
    listener: OutgoingListener,
    match?: (params: Json) => boolean,
  ): () => void {
    const claim = { method, listener, match };
    this.claims.push(claim);
    return () => {
      const index = this.claims.indexOf(claim);
      if (index >= 0) this.claims.splice(index, 1);
    };
  }

  onResponse(id: RequestId, listener: ResponseListener): void {
    this.responseListeners.set(id, listener);
  }

  /** Every response, whoever asked: the session layer reads versions and server identity off them. */
  onAnyResponse(listener: (id: RequestId, response: WireResponse) => void): void {
    this.anyResponse.add(listener);
  }

  /** Stops waiting for a response (a call that ended without one must not leak its listener). */
  forgetResponse(id: RequestId): void {
    this.responseListeners.delete(id);
  }

  onRequestSent(listener: RequestListener): () => void {
    this.requestListeners.add(listener);
    return () => {
      this.requestListeners.delete(listener);
    };
  }

  /** Sending a message of `method` failed: e.g. the server answered its HTTP request with a 4xx. */
  onSendFailed(method: string, listener: (error: unknown) => void): void {
    const listeners = this.failureListeners.get(method) ?? new Set();
    listeners.add(listener);
    this.failureListeners.set(method, listeners);
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

  private interceptIncoming(transport: { onmessage?: Handler }): void {
    const wrappers = new WeakMap<Handler, Handler>();
    const raw = new WeakMap<Handler, Handler | undefined>();
    let inner: Handler | undefined = transport.onmessage;
    const observeOnly: Handler = (message) => this.observeIncoming(message);
    Object.defineProperty(transport, "onmessage", {
      configurable: true,
      enumerable: true,
      // One stable wrapper per handler: an SDK that saves and later restores the handler gets it back unchanged.
      get: () => {
        if (!inner) return observeOnly;
        let wrapper = wrappers.get(inner);
        if (!wrapper) {
          const handler = inner;
          wrapper = (message, extra) => {
            this.observeIncoming(message);
            handler(message, extra);
          };
          wrappers.set(handler, wrapper);
          raw.set(wrapper, handler);
        }
        return wrapper;
      },
      set: (handler: Handler | undefined) => {
        inner =
          handler && (raw.has(handler) ? raw.get(handler) : handler === observeOnly ? undefined : handler);
      },
    });
  }

  private observeOutgoing(message: unknown, at: number): void {
    const m = message as Json;
    if (typeof m.method !== "string") return;
    const params = (m.params ?? {}) as Json;
    if ("id" in m && (typeof m.id === "string" || typeof m.id === "number")) {
      const id = m.id;
      for (const listener of this.requestListeners) listener(m.method, id, params, at);
      const index = this.claims.findIndex(
        (claim) => claim.method === m.method && (claim.match?.(params) ?? true),
      );
      const claim = index >= 0 ? this.claims.splice(index, 1)[0] : undefined;
      claim?.listener(id, params, at);
      return;
    }
    for (const listener of this.outgoing) listener(m.method, params, at);
  }

  private observeIncoming(message: unknown): void {
    if (!message || typeof message !== "object" || this.observed.has(message)) return;
    this.observed.add(message);
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
    const error = m.error as { code?: unknown; data?: unknown } | undefined;
    const response: WireResponse =
      error && typeof error.code === "number"
        ? { at, error: { code: error.code, data: error.data } }
        : { at, result: (m.result ?? {}) as Json };
    for (const listener of this.anyResponse) listener(m.id, response);
    const listener = this.responseListeners.get(m.id);
    if (!listener) return;
    this.responseListeners.delete(m.id);
    listener(response);
  }
}
