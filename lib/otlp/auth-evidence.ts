import type { AuthChallenge, Session } from "../contract/record";
import { RECEIPT, RECEIPT_EVENTS } from "./attribute-names";
import { type EvidenceReader, parseInteger, parseText, type Source } from "./evidence-reader";
import { errorCodeOf, eventMs, failedHttpStatusOf, isoOf, type MappedSpan, succeeded } from "./mapped-span";
import { CLIENT_SIDE_CODES } from "./session-evidence";
import { isClientRequest } from "./span-values";

const CHALLENGE_STATUS = parseInteger(401, 403);

/** A challenge and where its details are read: the failing span's attributes, or the event's. */
type Challenge = { at: number; status: 401 | 403; source: Source; span: MappedSpan };

/**
 * `session.auth` from the session's spans up to `refMs`: the latest span that failed with HTTP 401 or 403 (an MCP
 * span's `error.type` or `http.response.status_code`, or an HTTP span's), or a `receipt.auth.challenge` event; it
 * is resolved by the first MCP request that started after it and got an answer. `used` lists the spans read.
 */
export function authEvidence(
  reader: EvidenceReader,
  group: readonly MappedSpan[],
  refMs: number,
): { auth?: Session["auth"]; used: MappedSpan[] } {
  return authEvidenceIndex(group)(reader, refMs);
}

/** A span authEvidence may read a challenge from: one that failed with 401 or 403, or carries a challenge event. */
export function mayChallenge(mapped: MappedSpan): boolean {
  const status = failedHttpStatusOf(mapped);
  return (
    status === 401 ||
    status === 403 ||
    mapped.span.events.some((event) => event.name === RECEIPT_EVENTS.authChallenge)
  );
}

type AuthIndex = { challenges: readonly MappedSpan[]; answeredByEnd: readonly MappedSpan[] };

/**
 * authEvidence for many reference times over one group: the challenges and the answered requests are found once
 * (a session without a challenge costs nothing a chain), so a session is not read whole for each of its chains.
 */
export function authEvidenceIndex(
  group: readonly MappedSpan[],
): (reader: EvidenceReader, refMs: number) => { auth?: Session["auth"]; used: MappedSpan[] } {
  const challenges = group.filter(mayChallenge);
  if (challenges.length === 0) return () => ({ used: [] });
  const answeredByEnd = group
    .filter(
      (mapped) =>
        mapped.method !== undefined &&
        isClientRequest(mapped.span) &&
        mapped.endMs !== undefined &&
        answered(mapped),
    )
    .sort((a, b) => (a.endMs ?? 0) - (b.endMs ?? 0));
  return (reader, refMs) => authAt(reader, { challenges, answeredByEnd }, refMs);
}

function authAt(
  reader: EvidenceReader,
  index: AuthIndex,
  refMs: number,
): { auth?: Session["auth"]; used: MappedSpan[] } {
  const challenge = latestChallenge(reader, index.challenges, refMs);
  if (challenge === undefined) return { used: [] };
  const details: AuthChallenge = { status: challenge.status, at: isoOf(challenge.at) };
  const text = (key: string, max: number) =>
    reader.read(challenge.source, key, parseText(max), `expected 1-${max} characters`);
  const error = text(RECEIPT.authError, 64);
  if (error !== undefined) details.error = error;
  const scope = text(RECEIPT.authRequiredScope, 512);
  if (scope !== undefined) details.requiredScope = scope;
  const metadata = reader.read(
    challenge.source,
    RECEIPT.authResourceMetadataUrl,
    parseResourceUrl,
    RESOURCE_URL,
  );
  if (metadata !== undefined) details.resourceMetadataUrl = metadata;
  const resource = reader.read(challenge.source, RECEIPT.authResource, parseResourceUrl, RESOURCE_URL);
  if (resource !== undefined) details.resource = resource;

  const resolving = index.answeredByEnd.find(
    (mapped) => mapped.startMs >= challenge.at && mapped.startMs <= refMs,
  );
  const auth: NonNullable<Session["auth"]> = { challenge: details };
  if (resolving?.endMs !== undefined) auth.resolvedAt = isoOf(resolving.endMs);
  return { auth, used: resolving === undefined ? [challenge.span] : [challenge.span, resolving] };
}

function latestChallenge(
  reader: EvidenceReader,
  group: readonly MappedSpan[],
  refMs: number,
): Challenge | undefined {
  let latest: Challenge | undefined;
  const consider = (candidate: Challenge) => {
    if (candidate.at <= refMs && (latest === undefined || candidate.at >= latest.at)) latest = candidate;
  };
  for (const mapped of group) {
    const status = failedHttpStatusOf(mapped);
    if (status === 401 || status === 403) {
      consider({
        at: mapped.endMs ?? mapped.startMs,
        status,
        source: { span: mapped.span, attributes: mapped.span.attributes },
        span: mapped,
      });
    }
    for (const event of mapped.span.events) {
      const at = event.name === RECEIPT_EVENTS.authChallenge ? eventMs(event) : undefined;
      if (at === undefined) continue;
      const source = { span: mapped.span, attributes: event.attributes };
      const eventStatus = reader.read(source, RECEIPT.authStatus, CHALLENGE_STATUS, "expected 401 or 403");
      if (eventStatus === 401 || eventStatus === 403)
        consider({ at, status: eventStatus, source, span: mapped });
    }
  }
  return latest;
}

/** The server answered: a result, or a JSON-RPC error it sent (not a client-side timeout, not an HTTP failure). */
function answered(mapped: MappedSpan): boolean {
  if (succeeded(mapped)) return true;
  const code = errorCodeOf(mapped);
  return code !== undefined && !CLIENT_SIDE_CODES.has(code);
}

const RESOURCE_URL = "expected an http(s) URL without query or fragment";

function parseResourceUrl(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > 2048 || !/^https?:\/\/[^\s?#]+$/.test(value))
    return undefined;
  try {
    return new URL(value).protocol.startsWith("http") ? value : undefined;
  } catch {
    return undefined;
  }
}
