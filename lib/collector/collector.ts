import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { type Classification, classify } from "../classifier";
import { type CallReport, type CallToolOptions, runCall } from "./call";
import { CatalogTracker, type CatalogOptions } from "./catalog";
import { RetryRefusedError, SessionFailedError } from "./errors";
import { type AuthObserver, challengeCapturingFetch } from "./http-auth";
import type { CatalogEvidence, CollectorRecord, TransportKind } from "./record-types";
import { buildRecord, checkLabels } from "./records";
import { type RequiredCapabilities, SessionRecorder } from "./session";
import type { RecordSink } from "./sinks/types";
import { WireTap } from "./wire-tap";

export type CollectorOptions = {
  sink: RecordSink;
  clientInfo: { name: string; version: string };
  /** Capabilities the client declares in `initialize`. */
  capabilities?: ClientCapabilities;
  /** What this run needs, as dotted paths ("tools", "tools.listChanged"); missing → incompatible_session. */
  requiredCapabilities?: RequiredCapabilities;
  labels?: Record<string, string>;
  /** An initialize that never answers becomes a record after this long (default 30 s). */
  connectTimeoutMs?: number;
  catalog?: CatalogOptions;
  /** How long a call waits for a pending re-discovery before it is chosen anyway (default 2 s). */
  catalogWaitMs?: number;
  /** Minimum gap between "still working" records on progress / task updates (default 1 s). */
  heartbeatMs?: number;
};
export type ConnectOptions = {
  /** Bring your own SDK client (it must not be connected yet). */
  client?: Client;
  transportKind?: TransportKind;
  /** Challenge capture for a transport built elsewhere with `challengeCapturingFetch(auth)`. */
  auth?: AuthObserver;
  connectTimeoutMs?: number;
  /** Read the tool catalog right after initialize (default true). */
  readCatalog?: boolean;
};
export type CollectorCallOptions = CallToolOptions & {
  /** This call repeats that chain's call: refused with `RetryRefusedError` unless the classifier says retrySafe. */
  retryOf?: string | CallReport;
};
type Live = { tap: WireTap; session: SessionRecorder; catalog: CatalogTracker };

export function createCollector(options: CollectorOptions) {
  const labels = checkLabels(options.labels);
  const required = options.requiredCapabilities ?? {};
  const sessions = new WeakMap<Client, Live>();
  const authByTransport = new WeakMap<Transport, AuthObserver>();
  const latestByChain = new Map<string, CollectorRecord>();

  const emit = (record: CollectorRecord): void => {
    latestByChain.delete(record.chainId); // re-insert: the map stays in recency order
    latestByChain.set(record.chainId, record);
    if (latestByChain.size > 10_000) latestByChain.delete(latestByChain.keys().next().value as string);
    options.sink.submit([record]);
  };
  const live = (client: Client): Live => {
    const found = sessions.get(client);
    if (!found) throw new Error("this client was not connected through the collector");
    return found;
  };

  return {
    /** A Streamable HTTP transport whose 401/403 challenges are recorded (never the token). */
    streamableHttp(url: string | URL, transportOptions: StreamableHTTPClientTransportOptions = {}) {
      const auth: AuthObserver = {};
      const fetch = challengeCapturingFetch(auth, transportOptions.fetch);
      const transport = new StreamableHTTPClientTransport(new URL(url), { ...transportOptions, fetch });
      authByTransport.set(transport, auth);
      return transport;
    },

    /** Initializes the session; a session that fails is recorded and thrown as `SessionFailedError`. */
    async connect(transport: Transport, connect: ConnectOptions = {}): Promise<Client> {
      const tap = new WireTap(transport); // must precede client.connect: the SDK keeps a pre-set onmessage
      const session = new SessionRecorder(`session-${crypto.randomUUID()}`, tap, {
        clientInfo: options.clientInfo,
        transport: connect.transportKind ?? transportKind(transport),
        required,
        auth: connect.auth ?? authByTransport.get(transport),
      });
      const client =
        connect.client ?? new Client(options.clientInfo, { capabilities: options.capabilities ?? {} });
      const catalog = new CatalogTracker(client, tap, options.catalog);
      const timeout = connect.connectTimeoutMs ?? options.connectTimeoutMs ?? 30_000;
      try {
        await client.connect(transport, { timeout });
      } catch (error) {
        const chainId = `${session.id}.connect`;
        const record = buildRecord({ chainId, phase: "connect", session: session.snapshot(), labels });
        emit(record);
        await client.close().catch(() => undefined);
        throw new SessionFailedError(chainId, error, record);
      }
      sessions.set(client, { tap, session, catalog });
      if (connect.readCatalog !== false && client.getServerCapabilities()?.tools)
        await catalog.refresh().catch(() => undefined); // unread stays absent: the classifier says catalog.not_read
      // A session the classifier already rejects (missing capability…) is evidence even with no call.
      const record = buildRecord({
        chainId: `${session.id}.connect`,
        phase: "connect",
        session: session.snapshot(),
        catalog: catalog.snapshot(),
        labels,
      });
      const state = classify(record).state;
      if (state === "needs_auth" || state === "incompatible_session") emit(record);
      return client;
    },

    /** Calls a tool with the collector's clocks and hooks; emits start/progress/end/verified records. */
    async callTool(client: Client, call: CollectorCallOptions): Promise<CallReport> {
      if (call.retryOf !== undefined) this.assertRetrySafe(call.retryOf);
      const { tap, session, catalog } = live(client);
      await catalog.settled(options.catalogWaitMs ?? 2_000);
      const ctx = { tap, session, catalog, labels, emit, heartbeatMs: options.heartbeatMs ?? 1_000 };
      return runCall(ctx, client, call);
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

    async refreshCatalog(client: Client): Promise<CatalogEvidence> {
      return live(client).catalog.refresh();
    },

    /** The catalog as the next call would record it, and how many refreshes ran (the initial read included). */
    catalogState(client: Client): { catalog?: CatalogEvidence; refreshes: number } {
      const { catalog } = live(client);
      return { catalog: catalog.snapshot(), refreshes: catalog.refreshes };
    },

    latest(chainId: string): CollectorRecord | undefined {
      return latestByChain.get(chainId);
    },

    flush() {
      return options.sink.flush();
    },
  };
}

export type Collector = ReturnType<typeof createCollector>;

function transportKind(transport: Transport): TransportKind {
  if (transport instanceof StdioClientTransport) return "stdio";
  if (transport instanceof StreamableHTTPClientTransport) return "streamable-http";
  if (transport instanceof SSEClientTransport) return "sse";
  return "other";
}
