/**
 * Bodies kept in memory beside their Web objects in the fast lanes of scripts/app-server.ts. A request is built
 * without a body, which spares the Web stream undici would wrap it in and unwrap again (about 50 µs of CPU a request,
 * a twentieth of the retry guard's), and readJson takes the text from here. Its JSON answer is kept the same way
 * (jsonResponse), and serveWebRoute writes that text instead of reading a Response stream back.
 */
const bodies = new WeakMap<Request, Uint8Array>();
const builtHere = new WeakSet<Request>();
const answers = new WeakMap<Response, string>();

export function requestWithBufferedBody(url: string, init: RequestInit, body: Uint8Array | null): Request {
  const request = new Request(url, init);
  builtHere.add(request);
  if (body) bodies.set(request, body);
  return request;
}

/** The body's bytes as read by the fast lane (null when it had none), or undefined when not buffered. */
export function bufferedBodyBytes(request: Request): Uint8Array | null | undefined {
  if (!builtHere.has(request)) return undefined;
  return bodies.get(request) ?? null;
}

/** The body as `request.text()` would decode it (UTF-8, a leading BOM dropped), or undefined when not buffered. */
export function bufferedBodyText(request: Request): string | undefined {
  const body = bodies.get(request);
  return body === undefined ? undefined : utf8.decode(body);
}

/** An answer to `request`: with its body kept beside it when a fast lane built the request, else an ordinary one. */
export function responseFor(request: Request | undefined, body: string, init: ResponseInit): Response {
  if (!request || !builtHere.has(request)) return new Response(body, init);
  const response = new Response(null, init);
  answers.set(response, body);
  return response;
}

/** The body kept beside a response made by `responseFor`, or undefined for any other response. */
export function bufferedAnswer(response: Response): string | undefined {
  return answers.get(response);
}

const utf8 = new TextDecoder();
