import type { IncomingMessage, ServerResponse } from "node:http";
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
  const body = await readAtMost(incoming, maxBytes + 1);
  const request = requestWithBufferedBody(
    `http://${incoming.headers.host ?? "localhost"}${incoming.url ?? "/"}`,
    { method: incoming.method, headers },
    body,
  );
  const response = await handler(request, { params: Promise.resolve(params) });
  const kept = bufferedAnswer(response);
  const answer = kept === undefined ? Buffer.from(await response.arrayBuffer()) : Buffer.from(kept);
  for (const { key, value } of SECURITY_HEADERS) outgoing.setHeader(key, value);
  outgoing.setHeader("content-security-policy", RESOURCE_CONTENT_SECURITY_POLICY);
  response.headers.forEach((value, key) => {
    if (key !== "content-length") outgoing.setHeader(key, value);
  });
  outgoing.setHeader("content-length", answer.length);
  outgoing.writeHead(response.status);
  outgoing.end(answer);
}

/** The request's body, stopping after `limit` bytes (the rest is drained, not kept); null when it has none. */
async function readAtMost(incoming: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    if (length >= limit) continue;
    chunks.push(chunk);
    length += chunk.length;
  }
  if (length === 0) return null;
  const whole = Buffer.concat(chunks, length);
  return whole.length > limit ? whole.subarray(0, limit) : whole;
}
