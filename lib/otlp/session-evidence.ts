import type { Catalog, Session } from "../contract/record";
import { sha256Hex } from "../contract/sha256";
import { METHODS, RECEIPT, RESOURCE, SEMCONV } from "./attribute-names";
import {
  type EvidenceReader,
  expectedOneOf,
  parseBool,
  parseEnum,
  parseInteger,
  parseSchemaHash,
  parseStrings,
  parseText,
  parseVersion,
  parseVersions,
  type Source,
} from "./evidence-reader";
import { type MappedSpan, attributeSource, errorCodeOf, isoOf, latestFirst, succeeded } from "./mapped-span";
import { intAttr, isClientRequest, stringAttr } from "./span-values";

/** The first modern protocol revision (stateless, no initialize). */
export const MODERN_FROM = "2026-07-28";
/** The protocol version a record carries when no span reports one (traceloop without content): "not reported". */
export const UNREPORTED_VERSION = "0000-00-00";
/** The schema hash of a catalog whose tools were not reported: SHA-256 of the empty string. */
export const UNREPORTED_SCHEMA_HASH = `sha256:${sha256Hex("")}`;
/** Client, server and version names when nothing reports them. */
export const UNREPORTED = "unknown";

const TRANSPORTS = ["stdio", "streamable-http", "sse", "other"] as const;
const ERAS = ["legacy", "modern"] as const;
const MAX_CATALOG_PAGES = 1_000_000;

/** The session spans a chain is built on: the latest of each kind that started by the reference time. */
export type SessionSpans = {
  initialize?: MappedSpan;
  initialized?: MappedSpan;
  discover?: MappedSpan;
  toolsList?: MappedSpan;
  listChanged: MappedSpan[];
};

/**
 * The session spans of a group, sorted once, so that each chain's pick is a binary search instead of a sort of the
 * whole session (a session of thousands of calls was rebuilt in time quadratic in its size).
 */
export function sessionSpanIndex(group: readonly MappedSpan[]): (refMs: number) => SessionSpans {
  const sorted = group.filter((mapped) => SESSION_METHODS.has(mapped.method?.method ?? "")).sort(latestFirst);
  const of = (method: string, extra: (mapped: MappedSpan) => boolean) =>
    sorted.filter((mapped) => mapped.method?.method === method && extra(mapped));
  const initialize = of(METHODS.initialize, (mapped) => isClientRequest(mapped.span));
  const initialized = of(METHODS.initialized, () => true);
  const discover = of(METHODS.discover, (mapped) => isClientRequest(mapped.span));
  const toolsList = of(METHODS.toolsList, (mapped) => isClientRequest(mapped.span) && succeeded(mapped));
  const listChanged = of(METHODS.listChanged, () => true);
  return (refMs) => {
    const latest = (list: MappedSpan[]) => list[startedBy(list, refMs)];
    const spans: SessionSpans = { listChanged: listChanged.slice(startedBy(listChanged, refMs)).reverse() };
    const first = latest(initialize);
    const firstInitialized = latest(initialized);
    const firstDiscover = latest(discover);
    const firstList = latest(toolsList);
    if (first) spans.initialize = first;
    if (firstInitialized) spans.initialized = firstInitialized;
    if (firstDiscover) spans.discover = firstDiscover;
    if (firstList) spans.toolsList = firstList;
    return spans;
  };
}

/** The methods whose spans every chain of the session reads (sessionSpansBy, observedLayers). */
export const SESSION_METHODS: ReadonlySet<string> = new Set([
  METHODS.initialize,
  METHODS.initialized,
  METHODS.discover,
  METHODS.toolsList,
  METHODS.listChanged,
]);

/** In a list sorted latest first: the index of the first span that started by `refMs` (the list's length if none). */
function startedBy(list: readonly MappedSpan[], refMs: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((list[middle] as MappedSpan).startMs <= refMs) high = middle;
    else low = middle + 1;
  }
  return low;
}

export function sessionSpansBy(group: readonly MappedSpan[], refMs: number): SessionSpans {
  return sessionSpanIndex(group)(refMs);
}

export function contributingSessionSpans(spans: SessionSpans): MappedSpan[] {
  const chosen = [spans.initialize, spans.initialized, spans.discover, spans.toolsList];
  return [...chosen.filter((mapped): mapped is MappedSpan => mapped !== undefined), ...spans.listChanged];
}

/**
 * `receiptSources`: the call span and its parent (first wins), or nothing for a session-only record;
 * `callAnswered`: the server answered the call (for sessions whose handshake is not among the spans).
 */
export function sessionEvidence(
  reader: EvidenceReader,
  spans: SessionSpans,
  receiptSources: readonly Source[],
  callAnswered: boolean,
  sessionId: string,
): Session {
  const { initialize, discover } = spans;
  const handshake = [initialize, discover].filter((mapped): mapped is MappedSpan => mapped !== undefined);
  const sources = [...receiptSources, ...contributingSessionSpans(spans).map(attributeSource)];
  const resources = [...receiptSources, ...handshake.map(attributeSource)].map((source) => ({
    span: source.span,
    attributes: source.span.resource,
  }));
  const semconvVersion = [...handshake.map((mapped) => mapped.span), ...receiptSources.map((s) => s.span)]
    .map((span) => parseVersion(span.attributes[SEMCONV.protocolVersion] ?? ""))
    .find((version) => version !== undefined);

  const handshakeAgreed = handshake.some(succeeded);
  const handshakeAnswered = handshake.some((mapped) => succeeded(mapped) || answeredWithError(mapped));
  const requested =
    reader.pick(sources, RECEIPT.requestedVersion, parseVersion, "expected YYYY-MM-DD") ??
    semconvVersion ??
    UNREPORTED_VERSION;
  const accepted =
    reader.pick(sources, RECEIPT.acceptedVersion, parseVersion, "expected YYYY-MM-DD") ??
    (handshakeAgreed || (handshake.length === 0 && callAnswered) ? (semconvVersion ?? requested) : undefined);
  const era =
    reader.pick(sources, RECEIPT.era, parseEnum(ERAS), expectedOneOf(ERAS)) ??
    (requested >= MODERN_FROM || (initialize === undefined && discover !== undefined) ? "modern" : "legacy");
  const clientSupported =
    reader.pick(sources, RECEIPT.clientSupportedVersions, parseVersions, "expected YYYY-MM-DD strings") ??
    [...new Set([requested, ...(accepted === undefined ? [] : [accepted])])].sort();
  const serverSupported = reader.pick(
    sources,
    RECEIPT.serverSupportedVersions,
    parseVersions,
    "expected YYYY-MM-DD strings",
  );

  const session: Session = {
    id: sessionId,
    client: {
      name:
        reader.pick(
          [...sources, ...resources],
          RECEIPT.clientName,
          parseText(128),
          "expected 1-128 characters",
        ) ?? resourceText(resources, RESOURCE.serviceName, 128),
      version:
        reader.pick(
          [...sources, ...resources],
          RECEIPT.clientVersion,
          parseText(64),
          "expected 1-64 characters",
        ) ?? resourceText(resources, RESOURCE.serviceVersion, 64),
    },
    transport:
      reader.pick(sources, RECEIPT.transport, parseEnum(TRANSPORTS), expectedOneOf(TRANSPORTS)) ??
      transportOf(sources),
    protocol: { era, requestedVersion: requested, clientSupportedVersions: clientSupported },
    capabilities: {
      server: pickStrings(reader, sources, RECEIPT.serverCapabilities),
      client: pickStrings(reader, sources, RECEIPT.clientCapabilities),
      required: {
        server: pickStrings(reader, sources, RECEIPT.requiredServerCapabilities),
        client: pickStrings(reader, sources, RECEIPT.requiredClientCapabilities),
      },
    },
  };
  const serverName = reader.pick(sources, RECEIPT.serverName, parseText(128), "expected 1-128 characters");
  if (handshakeAnswered || callAnswered || serverName !== undefined) {
    session.server = {
      name: serverName ?? serverAddressOf(sources) ?? UNREPORTED,
      version:
        reader.pick(sources, RECEIPT.serverVersion, parseText(64), "expected 1-64 characters") ?? UNREPORTED,
    };
  }
  if (accepted !== undefined) session.protocol.acceptedVersion = accepted;
  if (serverSupported !== undefined) session.protocol.serverSupportedVersions = serverSupported;
  const initializedMs =
    spans.initialized?.startMs ?? (initialize && succeeded(initialize) ? initialize.endMs : undefined);
  if (era === "legacy" && initializedMs !== undefined) session.protocol.initializedAt = isoOf(initializedMs);
  return session;
}

/** The catalog from the last successful tools/list; `receipt.catalog.*` on it, else on the call, fill it in. */
export function catalogEvidence(
  reader: EvidenceReader,
  spans: SessionSpans,
  receiptSources: readonly Source[],
): { catalog?: Catalog; toolNameHashes?: string[] } {
  const list = spans.toolsList;
  if (list?.endMs === undefined) return {};
  const sources = [attributeSource(list), ...receiptSources];
  const count = (key: string) =>
    reader.pick(sources, key, parseInteger(0, MAX_CATALOG_PAGES), "expected an integer ≥ 0");
  const catalog: Catalog = {
    pages: count(RECEIPT.catalogPages) ?? 1,
    complete: reader.pick(sources, RECEIPT.catalogComplete, parseBool, "expected a boolean") ?? true,
    toolCount: count(RECEIPT.catalogToolCount) ?? 0,
    schemaHash:
      reader.pick(
        sources,
        RECEIPT.catalogSchemaHash,
        parseSchemaHash,
        'expected "sha256:" and 64 hex digits',
      ) ?? UNREPORTED_SCHEMA_HASH,
    refreshedAt: isoOf(list.endMs),
    listChangedAt: [...new Set(spans.listChanged.map((mapped) => mapped.startMs))]
      .sort((a, b) => a - b)
      .map(isoOf),
  };
  const ttlMs = reader.pick(
    sources,
    RECEIPT.catalogTtlMs,
    parseInteger(1, Number.MAX_SAFE_INTEGER),
    "expected ms > 0",
  );
  if (ttlMs !== undefined) catalog.ttlMs = ttlMs;
  const toolNameHashes = reader.pick(
    sources,
    RECEIPT.catalogToolNameHashes,
    parseStrings,
    "expected strings",
  );
  return toolNameHashes === undefined ? { catalog } : { catalog, toolNameHashes };
}

/** The handshake got a JSON-RPC error back (the server answered, and refused). */
function answeredWithError(mapped: MappedSpan): boolean {
  const code = errorCodeOf(mapped);
  return mapped.endMs !== undefined && code !== undefined && !CLIENT_SIDE_CODES.has(code);
}

/**
 * Codes the TypeScript SDK raises on the client without any answer: -32001 request timeout, -32000 connection
 * closed (contract §1: a client-side timeout is no response).
 */
export const CLIENT_SIDE_CODES: ReadonlySet<number> = new Set([-32001, -32000]);

function pickStrings(reader: EvidenceReader, sources: readonly Source[], key: string): string[] {
  return [...(reader.pick(sources, key, parseStrings, "expected a string array") ?? [])].sort();
}

function resourceText(resources: readonly Source[], key: string, max: number): string {
  for (const source of resources) {
    const value = stringAttr(source.attributes, key);
    if (value) return value.slice(0, max);
  }
  return UNREPORTED;
}

/** `network.transport`: pipe is stdio; tcp or quic is HTTP, Streamable HTTP unless told otherwise. */
function transportOf(sources: readonly Source[]): Session["transport"] {
  for (const source of sources) {
    const transport = stringAttr(source.attributes, SEMCONV.networkTransport);
    if (transport === "pipe") return "stdio";
    if (transport === "tcp" || transport === "quic") return "streamable-http";
    if (transport !== undefined) return "other";
  }
  return "other";
}

function serverAddressOf(sources: readonly Source[]): string | undefined {
  for (const source of sources) {
    const address = stringAttr(source.attributes, SEMCONV.serverAddress);
    if (!address) continue;
    const port = intAttr(source.attributes, SEMCONV.serverPort);
    return (port === undefined ? address : `${address}:${port}`).slice(0, 128);
  }
  return undefined;
}
