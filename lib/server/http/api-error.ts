import { jsonResponse } from "./json-response";
/** One problem in a request, located by a JSON path (`$.records[3].call.startedAt`, `$.query.limit`). */
export type ApiIssue = {
  index?: number;
  path: string;
  code: string;
  message: string;
  /** The part of a query string at fault, with its UTF-16 offsets (the search box's tokens). */
  token?: { text: string; start: number; end: number };
};

/**
 * Every error the API answers with: an HTTP status, a stable machine-readable code, and the issues that caused it.
 * Thrown by services, turned into a response once, in `apiRoute`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: ApiIssue[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toResponse(): Response {
    const body: { code: string; message: string; issues?: ApiIssue[] } = {
      code: this.code,
      message: this.message,
    };
    if (this.issues.length > 0) body.issues = this.issues;
    return jsonResponse({ error: body }, this.status, this.headers);
  }
}

export const unauthorized = (message: string) => new ApiError(401, "unauthorized", message);
export const forbidden = (message: string, code = "forbidden") => new ApiError(403, code, message);
export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);

/** Seconds a client should wait before retrying a request refused because PostgreSQL was unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** PostgreSQL is down, restarting or out of connections: nothing was written, the same request may be sent again. */
export const databaseUnavailable = () =>
  new ApiError(503, "database_unavailable", "the database is unavailable; retry later", [], {
    "retry-after": String(DATABASE_RETRY_AFTER_SECONDS),
  });

/**
 * The client hung up before its body was complete: nothing was read, so nothing was written. Not a database outage
 * (a reset socket under the body read carries ECONNRESET like a dropped database connection); the answer goes to
 * nobody, but it keeps the request out of the outage log and the 5xx counts.
 */
export const bodyIncomplete = () =>
  new ApiError(400, "body_incomplete", "the request body ended before it was complete; nothing was written", [
    { path: "$", code: "body_incomplete", message: "the connection closed mid-body" },
  ]);
