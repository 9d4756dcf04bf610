import { classify } from "../../../lib/classifier";
import { CatalogTracker, type CatalogOptions } from "./catalog";
import { SessionFailedError } from "./errors";
import type { AuthObserver } from "./http-auth";
import type { CollectorRecord, TransportKind } from "./record-types";
import { buildRecord, newId } from "./records";
import { httpStatusOfError } from "./sdk/duck-typing";
import type { SessionClient } from "./sdk/session-client";
import { observeProbeAnswers } from "./probe-answers";
import type { ProtocolDefaults } from "./sdk/session-client";
import { type RequiredCapabilities, SessionRecorder } from "./session";
import { UNSUPPORTED_VERSION, versionRejected } from "./session-modern";
import { iso } from "./time";
import { type TappableTransport, WireTap } from "./wire-tap";

/** Everything the collector keeps for one connected client. */
export type LiveSession = {
  client: SessionClient;
  tap: WireTap;
  session: SessionRecorder;
  catalog: CatalogTracker;
};

export type OpenSessionInput = {
  transport: TappableTransport;
  transportKind: TransportKind;
  protocol: ProtocolDefaults;
  clientInfo: { name: string; version: string };
  required: RequiredCapabilities;
  auth?: AuthObserver;
  catalogOptions?: CatalogOptions;
  readCatalog: boolean;
  labels?: Record<string, string>;
  emit: (record: CollectorRecord) => void;
  client: SessionClient;
  /** The SDK's own connect: initialize, or the modern `server/discover` probe. */
  connect: () => Promise<void>;
  /** A modern session whose probe the tap did not see (SDK 2.x probes stdio on a sibling process). */
  discover?: () => Promise<unknown>;
  /**
   * A client that was connected before it was wrapped: `connect` is not called, and the record says the handshake
   * was not observed (and the catalog, until a tools/list crosses the tap), with what the SDK kept of the server.
   */
  attached?: { server: unknown; capabilities: unknown };
};

/**
 * Connects through the SDK with the tap already on the transport. A session that fails (401/403,
 * an unsupported version, no answer) is recorded on chain `<sessionId>.connect` and thrown as
 * `SessionFailedError`; a connected session the classifier already rejects is recorded too.
 */
export async function openSession(input: OpenSessionInput): Promise<LiveSession> {
  const tap = new WireTap(input.transport); // before connect: the tap must see the first message
  // A transport built without challengeCapturingFetch still reports a 401/403 in its error (below).
  const auth: AuthObserver = input.auth ?? {};
  const session = new SessionRecorder(newId("session"), tap, {
    clientInfo: input.clientInfo,
    transport: input.transportKind,
    required: input.required,
    auth,
    protocol: input.protocol,
  });
  // Only SDK 2.x modern or auto sessions probe with server/discover before connecting.
  if (input.protocol.era === "modern") observeProbeAnswers(input.transport, tap, session.state);
  const catalog = new CatalogTracker(input.client, tap, input.catalogOptions);
  const chainId = `${session.id}.connect`;
  if (input.attached) session.attachConnected(input.attached.server, input.attached.capabilities);
  try {
    if (!input.attached) await input.connect();
  } catch (error) {
    // SDK 2.x may have probed on a process the tap never saw: its typed -32022 is still the server's answer.
    const rejected = error as { code?: unknown; data?: unknown };
    if (!session.state.answered && rejected?.code === UNSUPPORTED_VERSION)
      versionRejected(session.state, rejected.data);
    // The server did answer, with 401/403: the status at least, where the fetch saw no challenge.
    const status = httpStatusOfError(error);
    if (!auth.challenge && (status === 401 || status === 403))
      auth.challenge = { status, at: iso(Date.now()) };
    const record = buildRecord({
      chainId,
      phase: "connect",
      session: session.snapshot(),
      labels: input.labels,
    });
    input.emit(record);
    await input.client.close().catch(() => undefined);
    throw new SessionFailedError(chainId, error, record);
  }
  if (session.state.era === "modern" && !session.state.discovered && input.discover)
    await input.discover().catch(() => undefined); // without it the record lacks the server's versions, nothing worse
  if (input.readCatalog && input.client.serverCapabilities()?.tools)
    await catalog.refresh().catch(() => undefined); // unread stays absent: the classifier says catalog.not_read
  const catalogSnapshot = catalog.snapshot();
  const record = buildRecord({
    chainId,
    phase: "connect",
    session: session.snapshot(),
    catalog: catalogSnapshot,
    observed: session.observed(catalogSnapshot !== undefined),
    labels: input.labels,
  });
  const state = classify(record).state;
  if (state === "needs_auth" || state === "incompatible_session") input.emit(record);
  return { client: input.client, tap, session, catalog };
}
