import type {
  ClientOptions as V2ClientOptions,
  StreamableHTTPClientTransportOptions as V2StreamableHttpOptions,
  Transport as V2Transport,
} from "@modelcontextprotocol/client";
import type { StreamableHTTPClientTransportOptions } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Classification, classify } from "../../../lib/classifier";
import { type CallReport, type CallToolOptions, runCall } from "./call";
import { recordDirectCalls } from "./direct-calls";
import { guardCall, type OperationGuardOptions } from "./operation-guard";
import type { CatalogOptions } from "./catalog";
import { type LiveSession, openSession } from "./connect";
import { RetryRefusedError } from "./errors";
import { type AuthObserver, challengeCapturingFetch } from "./http-auth";
import type { CatalogEvidence, CollectorRecord, TransportKind } from "./record-types";
import { checkLabels } from "./records";
import { sdkV1, type V1ClientLike, v1Protocol, v1SessionClient, v1TransportKind } from "./sdk/v1";
import { sdkV2, v2Protocol, v2SessionClient, v2TransportKind } from "./sdk/v2";
import type {
  ClientCapabilitiesLike,
  StreamableHttpOptionsLike,
  TransportLike,
  V2ClientLike,
  V2ClientOptionsLike,
} from "./sdk/structural";
import type { RequiredCapabilities } from "./session";
import type { FlushOptions, RecordSink } from "./sinks/types";

export type CollectorOptions = {
  sink: RecordSink;
  clientInfo: { name: string; version: string };
  /** Capabilities the client declares (in `initialize`, or in every modern request's `_meta`). */
  capabilities?: ClientCapabilitiesLike;
  /** What this run needs, as dotted paths ("tools", "tools.listChanged"); missing → incompatible_session. */
  requiredCapabilities?: RequiredCapabilities;
  labels?: Record<string, string>;
  /** An initialize (or discover) that never answers becomes a record after this long (default 30 s). */
  connectTimeoutMs?: number;
  catalog?: CatalogOptions;
  /** How long a call waits for a pending re-discovery before it is chosen anyway (default 2 s). */
  catalogWaitMs?: number;
  /** Minimum gap between "still working" records on progress / task updates (default 1 s). */
  heartbeatMs?: number;
  /** Ask Receipt's retry guard before every write that carries an `operationKey` (operation-guard.ts). */
  operationGuard?: OperationGuardOptions;
};
type CommonConnectOptions = {
  transportKind?: TransportKind;
  /** Challenge capture for a transport built elsewhere with `challengeCapturingFetch(auth)`. */
  auth?: AuthObserver;
  connectTimeoutMs?: number;
  /** Read the tool catalog right after connecting (default true). */
  readCatalog?: boolean;
};
/** SDK 1.x (`@modelcontextprotocol/sdk`): the legacy revisions, up to 2025-11-25. */
export type ConnectOptions<C extends V1ClientLike = V1ClientLike> = CommonConnectOptions & {
  /**
   * Bring your own SDK 1.x client; any copy of the SDK will do. Best not connected yet: a client connected already
   * is observed from here on (its records say `observed.handshake: false`, and `catalog: false` until a tools/list).
   */
  client?: C;
};
/** SDK 2.x (`@modelcontextprotocol/client`): also the modern 2026-07-28 revision. */
export type ConnectV2Options = CommonConnectOptions & {
  /**
   * Options of the 2.x client the collector builds, e.g. `{ versionNegotiation: { mode: "auto" } }`
   * or `{ mode: { pin: "2026-07-28" } }`. The SDK's default is the legacy handshake. The collector
   * builds the client itself so that the versions it offers are known to the record. Unless
   * `listChanged.tools` is given, a modern session subscribes to tools/list_changed.
   */
  clientOptions?: V2ClientOptionsLike;
};
export type CollectorCallOptions = CallToolOptions & {
  /** This call repeats that chain's call: refused with `RetryRefusedError` unless the classifier says retrySafe. */
  retryOf?: string | CallReport;
};
/** A client connected through `connect` or `connectV2`. */
type AnyClient = V1ClientLike | V2ClientLike;

export function createCollector(options: CollectorOptions) {
  const labels = checkLabels(options.labels);
  const required = options.requiredCapabilities ?? {};
  const sessions = new WeakMap<AnyClient, LiveSession>();
  const authByTransport = new WeakMap<object, AuthObserver>();
  const latestByChain = new Map<string, CollectorRecord>();

  const emit = (record: CollectorRecord): void => {
    latestByChain.delete(record.chainId); // re-insert: the map stays in recency order
    latestByChain.set(record.chainId, record);
    if (latestByChain.size > 10_000) latestByChain.delete(latestByChain.keys().next().value as string);
    options.sink.submit([record]);
  };
  const live = (client: AnyClient): LiveSession => {
    const found = sessions.get(client);
    if (!found) throw new Error("this client was not connected through the collector");
    return found;
  };
  const common = (transport: object, connect: CommonConnectOptions) => ({
    clientInfo: options.clientInfo,
    required,
    auth: connect.auth ?? authByTransport.get(transport),
    catalogOptions: options.catalog,
    readCatalog: connect.readCatalog !== false,
    labels,
    emit,
  });
  const timeoutOf = (connect: CommonConnectOptions) =>
    connect.connectTimeoutMs ?? options.connectTimeoutMs ?? 30_000;

  const collector = {
    /** An SDK 1.x Streamable HTTP transport whose 401/403 challenges are recorded (never the token). */
    streamableHttp(url: string | URL, transportOptions: StreamableHttpOptionsLike = {}): TransportLike {
      const { StreamableHTTPClientTransport } = sdkV1();
      const auth: AuthObserver = {};
      const fetch = challengeCapturingFetch(auth, transportOptions.fetch);
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        ...(transportOptions as StreamableHTTPClientTransportOptions),
        fetch,
      });
      authByTransport.set(transport, auth);
      return transport;
    },

    /** The same for SDK 2.x (modern-era HTTP needs the 2.x transport: it sends the Mcp-* headers). */
    streamableHttpV2(url: string | URL, transportOptions: StreamableHttpOptionsLike = {}): TransportLike {
      const { StreamableHTTPClientTransport: V2StreamableHttp } = sdkV2();
      const auth: AuthObserver = {};
      const fetch = challengeCapturingFetch(auth, transportOptions.fetch);
      const transport = new V2StreamableHttp(new URL(url), {
        ...(transportOptions as V2StreamableHttpOptions),
        fetch,
      });
      authByTransport.set(transport, auth);
      return transport;
    },

    /** Connects an SDK 1.x client (initialize); a session that fails is recorded and thrown as `SessionFailedError`. */
    async connect<C extends V1ClientLike = V1ClientLike>(
      transport: TransportLike,
      connect: ConnectOptions<C> = {},
    ): Promise<C> {
      // Without a client of the caller's, C is the default: the collector's own SDK 1.x Client.
      const client =
        connect.client ??
        (new (sdkV1().Client)(options.clientInfo, {
          capabilities: options.capabilities ?? {},
        }) as unknown as C);
      // A client connected before it was wrapped keeps its connection: the tap goes on the transport it uses, and the
      // collector is a partial observer (its records say the handshake was not observed).
      const connected = (client as { transport?: TransportLike }).transport;
      const tapped = connected ?? transport;
      const session = await openSession({
        ...common(tapped, connect),
        transport: tapped,
        transportKind: connect.transportKind ?? v1TransportKind(tapped),
        protocol: v1Protocol(),
        client: v1SessionClient(client),
        connect: () => client.connect(transport, { timeout: timeoutOf(connect) }),
        ...(connected !== undefined && {
          attached: {
            server: (client as { getServerVersion?: () => unknown }).getServerVersion?.(),
            capabilities: client.getServerCapabilities(),
          },
        }),
      });
      sessions.set(client, session);
      recordDirectCalls(client, "v1", (call) => collector.callTool(client, call));
      return client;
    },

    /** Connects an SDK 2.x client: legacy, modern (2026-07-28) or either, as `clientOptions` says. */
    async connectV2(transport: TransportLike, connect: ConnectV2Options = {}): Promise<V2ClientLike> {
      const clientOptions = {
        ...connect.clientOptions,
        capabilities: options.capabilities ?? {},
        // Modern servers send list_changed only on a subscriptions/listen stream: subscribe, so the
        // catalog's re-discovery sees them (the collector re-reads the list itself, not the SDK).
        listChanged: {
          tools: { onChanged: () => undefined, autoRefresh: false },
          ...connect.clientOptions?.listChanged,
        },
      };
      const client = new (sdkV2().Client)(options.clientInfo, clientOptions as V2ClientOptions);
      const session = await openSession({
        ...common(transport, connect),
        transport,
        transportKind: connect.transportKind ?? v2TransportKind(transport),
        protocol: v2Protocol(clientOptions as V2ClientOptions),
        client: v2SessionClient(client),
        connect: () => client.connect(transport as V2Transport, { timeout: timeoutOf(connect) }),
        discover: () => client.discover({ timeout: timeoutOf(connect) }),
      });
      sessions.set(client, session);
      recordDirectCalls(client, "v2", (call) => collector.callTool(client, call));
      return client;
    },

    /** Calls a tool with the collector's clocks and hooks; emits start/progress/end/verified records. */
    async callTool(client: AnyClient, call: CollectorCallOptions): Promise<CallReport> {
      if (call.retryOf !== undefined) this.assertRetrySafe(call.retryOf);
      const { client: sdk, tap, session, catalog } = live(client);
      // Awaited only when pending: a call is not held back by the microtasks of an empty wait.
      if (catalog.rediscovering) await catalog.settled(options.catalogWaitMs ?? 2_000);
      // A list whose modern cache hint ran out is read again before a tool is chosen from it.
      if (catalog.expired(Date.now())) await catalog.refresh().catch(() => undefined);
      const heartbeatMs = options.heartbeatMs ?? 1_000;
      const allowed = options.operationGuard ? await guardCall(options.operationGuard, call) : call;
      return runCall({ client: sdk, tap, session, catalog, labels, emit, heartbeatMs }, allowed);
    },

    /** Throws `RetryRefusedError` when repeating that chain's call could duplicate or contradict a write. */
    assertRetrySafe(previous: string | CallReport | CollectorRecord): Classification {
      const record =
        typeof previous === "string"
          ? latestByChain.get(previous)
          : "records" in previous
            ? previous.record
            : previous;
      if (!record) throw new RetryRefusedError(String(previous), "unknown", ["chain.unknown"]);
      const verdict = classify(record);
      if (verdict.retrySafe === false)
        throw new RetryRefusedError(record.chainId, verdict.state, verdict.reasons);
      return verdict;
    },

    classify(record: CollectorRecord, at?: string): Classification {
      return classify(record, at);
    },

    async refreshCatalog(client: AnyClient): Promise<CatalogEvidence> {
      return live(client).catalog.refresh();
    },

    /** The catalog as the next call would record it, and how many refreshes ran (the initial read included). */
    catalogState(client: AnyClient): { catalog?: CatalogEvidence; refreshes: number } {
      const { catalog } = live(client);
      return { catalog: catalog.snapshot(), refreshes: catalog.refreshes };
    },

    latest(chainId: string): CollectorRecord | undefined {
      return latestByChain.get(chainId);
    },

    /** Delivers what the sink holds, within its bound (`timeoutMs`, else the sink's `flushTimeoutMs`). */
    flush(flushOptions?: FlushOptions) {
      return options.sink.flush(flushOptions);
    },
  };
  return collector;
}

export type Collector = ReturnType<typeof createCollector>;
