// Whether an error means "PostgreSQL cannot be reached or will not take work now" (503, try again) rather than a
// fault of the request or of the code (500). Errors arrive in three shapes: node-postgres's own (SQLSTATE in `code`,
// or a socket errno), Prisma's (P1001…, or a `meta.driverAdapterError` wrapping @prisma/adapter-pg's mapping of the
// pg error), and pg's connection-loss errors, which carry only a message.

/** Socket errors of a server that is down, restarting or not reachable over the network. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of a server that is going away or refuses new sessions: class 08 (connection exception) except 08P01
 * (a protocol violation is a client bug), admin/crash shutdown and "cannot connect now" (57P01–57P03), and too many
 * connections (53300).
 */
function isUnavailableSqlState(code: string): boolean {
  if (/^08[0-9A-Z]{3}$/.test(code)) return code !== "08P01";
  // 25006: a write reached a read-only server, as after a failover until the client reconnects to the new primary.
  return code === "57P01" || code === "57P02" || code === "57P03" || code === "53300" || code === "25006";
}

/** Prisma's codes for "can't reach", "timed out", "server closed the connection", "no pooled connection in time". */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1017", "P2024"]);

/** @prisma/adapter-pg's kinds for the same conditions. */
const ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);

/** node-postgres raises these without a code when the socket under a client or a pool checkout is lost. */
const CONNECTION_LOST_MESSAGES = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Client was closed and is not queryable/,
  // SQLSTATE 55000 is a broad class; only this message of it means "the database refuses sessions now"
  // (ALTER DATABASE … ALLOW_CONNECTIONS false).
  /is not currently accepting connections/,
];

type ErrorLike = {
  code?: unknown;
  errorCode?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
  meta?: { driverAdapterError?: unknown };
};

function matches(error: ErrorLike): boolean {
  const code = typeof error.code === "string" ? error.code : undefined;
  if (code && (SOCKET_CODES.has(code) || PRISMA_CODES.has(code) || isUnavailableSqlState(code))) return true;
  if (typeof error.errorCode === "string" && PRISMA_CODES.has(error.errorCode)) return true;
  if (typeof error.kind === "string" && ADAPTER_KINDS.has(error.kind)) return true;
  const message = typeof error.message === "string" ? error.message : "";
  return CONNECTION_LOST_MESSAGES.some((pattern) => pattern.test(message));
}

/** True when `error`, or anything it wraps, says the database is unavailable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return someErrorIn(error, matches);
}

/** A deadlock (40P01) or a serialization failure (40001): Prisma's P2034, the adapter's kind, or pg's SQLSTATE. */
function isConflict(error: ErrorLike & { originalCode?: unknown }): boolean {
  const codes = [error.code, error.originalCode, error.errorCode];
  if (codes.some((code) => code === "40P01" || code === "40001" || code === "P2034")) return true;
  return error.kind === "TransactionWriteConflict";
}

/**
 * True when `error`, or anything it wraps, says the transaction lost a lock-order race or a serialization check:
 * nothing was written, and running the same transaction again is safe (retryOnConflict).
 */
export function isTransactionConflict(error: unknown): boolean {
  return someErrorIn(error, isConflict);
}

/**
 * Prisma's P2028: an interactive transaction that found no connection within its `maxWait` or ran past its `timeout`.
 * Prisma rolled it back, so nothing was written; under load this means "busy, try again", not a fault of the code.
 */
export function isTransactionTimeout(error: unknown): boolean {
  return someErrorIn(error, (candidate) => candidate.code === "P2028" || candidate.errorCode === "P2028");
}

/** Walks `error` and what it wraps (cause, Prisma's driver adapter error, an AggregateError's errors). */
function someErrorIn(error: unknown, test: (candidate: ErrorLike) => boolean): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== "object" || current === null || seen.has(current)) continue;
    seen.add(current);
    const candidate = current as ErrorLike;
    if (test(candidate)) return true;
    pending.push(candidate.cause, candidate.meta?.driverAdapterError);
    if (Array.isArray(candidate.errors)) pending.push(...candidate.errors);
  }
  return false;
}
