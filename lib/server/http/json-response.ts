import { responseFor } from "./buffered-body";

/** Under this many bytes an answer goes out as it is: gzip's header and setup cost more than they save. */
const COMPRESS_FROM_BYTES = 1024;

/**
 * JSON, compressed by the server only when it is worth it. Most answers (a guard decision, an ingest result) are a
 * few hundred bytes, and the server compresses a streamed body whatever its size: `no-transform` (honoured by its
 * compression, RFC 9111 §5.2.2.6) leaves a small one as it is.
 */
export function jsonResponse(
  data: unknown,
  status: number,
  headers: HeadersInit,
  request?: Request,
): Response {
  const body = JSON.stringify(data);
  // A Headers object keeps repeated headers (two Set-Cookie) as they were given; the caller's own values win.
  const merged = new Headers(headers);
  if (!merged.has("content-type")) merged.set("content-type", "application/json");
  if (body.length < COMPRESS_FROM_BYTES && !merged.has("cache-control"))
    merged.set("cache-control", "no-store, no-transform");
  return responseFor(request, body, { status, headers: merged });
}
