import type { IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { bufferedAnswer, requestWithBufferedBody } from "./buffered-body";
import { RESOURCE_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from "./security-headers";

/** A route handler as Next.js calls it: a Web Request and the path's segments in, a Web Response out. */
export type WebRouteHandler = (
  request: Request,
  context: { params: Promise<Record<string, string>> },
) => Promise<Response>;

/**
 * Runs a route handler on Node's request and response, as Next.js would, with the headers next.config.ts gives every
 * API response. The body is read up to one byte past `maxBytes` and no further: a longer one reaches the handler
 * still too long, so it answers 413 as it does under Next.js, without the rest ever being buffered. The handler reads it
 * from memory (buffered-body.ts), not through a Web stream, and a JSON answer comes back the same way.
 */
export async function serveWebRoute(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  handler: WebRouteHandler,
  params: Record<string, string>,
  maxBytes: number,
): Promise<void> {
  const headers = new Headers();
  for (let i = 0; i < incoming.rawHeaders.length; i += 2)
    headers.append(incoming.rawHeaders[i] as string, incoming.rawHeaders[i + 1] as string);
  const { body, complete } = await readAtMost(incoming, maxBytes + 1);
  const request = requestWithBufferedBody(
    `http://${incoming.headers.host ?? "localhost"}${incoming.url ?? "/"}`,
    { method: incoming.method, headers },
    body,
  );
  const response = await handler(request, { params: Promise.resolve(params) });
  const kept = bufferedAnswer(response);
  const plain = kept === undefined ? Buffer.from(await response.arrayBuffer()) : Buffer.from(kept);
  const compress = worthCompressing(incoming, response, plain);
  const answer = compress ? await gzipAsync(plain) : plain;
  for (const { key, value } of SECURITY_HEADERS) outgoing.setHeader(key, value);
  outgoing.setHeader("content-security-policy", RESOURCE_CONTENT_SECURITY_POLICY);
  response.headers.forEach((value, key) => {
    if (key !== "content-length") outgoing.setHeader(key, value);
  });
  if (compress) {
    outgoing.setHeader("content-encoding", "gzip");
    outgoing.setHeader("vary", "Accept-Encoding");
  }
  outgoing.setHeader("content-length", answer.length);
  if (!complete) outgoing.setHeader("connection", "close");
  outgoing.writeHead(response.status);
  outgoing.end(answer);
}

const gzipAsync = promisify(gzip);

/**
 * As Next.js's server compresses what it serves: gzip when the client takes it, unless the answer is under 1 KiB or
 * says `no-transform` (json-response.ts), or is encoded already. On libuv's thread pool, off the event loop.
 */
function worthCompressing(incoming: IncomingMessage, response: Response, body: Buffer): boolean {
  if (body.length < 1024 || response.headers.has("content-encoding")) return false;
  if ((response.headers.get("cache-control") ?? "").includes("no-transform")) return false;
  return /\bgzip\b/i.test(String(incoming.headers["accept-encoding"] ?? ""));
}

/**
 * The request's body, stopping after `limit` bytes; null when it has none. The rest is drained up to DRAIN_LIMIT_BYTES
 * more, so a client that sent a little too much still reads its 413; past that, reading stops and `complete` is false
 * (the answer then closes the connection instead of taking whatever a client sends).
 */
function readAtMost(
  incoming: IncomingMessage,
  limit: number,
): Promise<{ body: Buffer | null; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let seen = 0;
    const stop = () =>
      incoming.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    const finish = (complete: boolean) => {
      stop();
      const whole = kept === 0 ? null : Buffer.concat(chunks, kept);
      resolve({ body: whole && whole.length > limit ? whole.subarray(0, limit) : whole, complete });
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (kept < limit) {
        chunks.push(chunk);
        kept += chunk.length;
      }
      if (seen > limit + DRAIN_LIMIT_BYTES) {
        incoming.pause();
        finish(false);
      }
    };
    const onEnd = () => finish(true);
    const fail = (error: Error) => {
      stop();
      reject(error);
    };
    const onError = (error: Error) => fail(error);
    // Closed before its end: the client hung up mid-body.
    const onClose = () => fail(new Error("the client hung up mid-body"));
    incoming.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

const DRAIN_LIMIT_BYTES = 5 * 1024 * 1024;
