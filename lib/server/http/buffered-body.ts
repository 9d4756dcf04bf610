/**
 * Request bodies already read in full before the route ran (the fast lanes of scripts/app-server.ts): their Request
 * is built without a body, which spares the Web stream undici would wrap it in and unwrap again (about 50 µs of CPU a
 * request, a twentieth of the retry guard's), and readJson takes the text from here.
 */
const bodies = new WeakMap<Request, Uint8Array>();

export function requestWithBufferedBody(url: string, init: RequestInit, body: Uint8Array | null): Request {
  const request = new Request(url, init);
  if (body) bodies.set(request, body);
  return request;
}

/** The body as `request.text()` would decode it (UTF-8, a leading BOM dropped), or undefined when not buffered. */
export function bufferedBodyText(request: Request): string | undefined {
  const body = bodies.get(request);
  return body === undefined ? undefined : utf8.decode(body);
}

const utf8 = new TextDecoder();
