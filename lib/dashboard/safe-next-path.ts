// Any origin stands in for ours: only whether a value stays on the origin it is resolved against matters.
const BASE = "http://receipt.invalid";

// Browsers drop ASCII tab, LF and CR from a URL before parsing it ("/\t/evil" becomes "//evil"); any other control
// character has no place in a path of this site either.
const hasControlCharacter = (value: string) =>
  [...value].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f);

/** A path that leaves the origin when a browser resolves it: "//host", "/\host", "\\host", "\/host". */
const LEAVES_ORIGIN = /^[/\\][/\\]/;

// Only escapes of ASCII characters can hide "/", "\\" or a control character; a lone "%" (a chain id may hold one)
// is left as it is instead of failing the whole value.
const decodeAsciiEscapes = (value: string) =>
  value.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

// Each decoding step must keep the value a plain same-origin path: a server or proxy that decodes once more must
// not find "//evil.example" inside "/%2F%2Fevil.example".
const MAX_DECODING_STEPS = 4;

/** Pages a signed-out visitor is sent to: coming back to them after signing in would loop. */
const AUTH_PAGES = ["/sign-in", "/setup"];

/**
 * Where to send the browser after signing in, from a URL parameter (`?next=`) or the requested page: a path of
 * this site ("/chains?state=x"), or "/" for anything else — "//evil.example", "/\evil", "/%09/evil",
 * "/%2F%2Fevil", "https://evil", "javascript:…". The result is the re-serialised URL, not the input.
 */
export function safeNextPath(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048) return "/";
  if (!isPlainPathAtEveryDecoding(value)) return "/";
  let resolved: URL;
  try {
    resolved = new URL(value, BASE);
  } catch {
    return "/";
  }
  if (resolved.origin !== BASE) return "/";
  // Resolving can make "//x" itself: new URL("/.//x", base).pathname is "//x", "/%2e%2e/%2Fx" becomes "/%2Fx".
  const path = resolved.pathname + resolved.search + resolved.hash;
  if (!isPlainPathAtEveryDecoding(path)) return "/";
  if (AUTH_PAGES.some((page) => resolved.pathname === page || resolved.pathname.startsWith(`${page}/`)))
    return "/";
  return path;
}

function isPlainPathAtEveryDecoding(value: string): boolean {
  let current = value;
  for (let step = 0; step <= MAX_DECODING_STEPS; step++) {
    if (hasControlCharacter(current) || !current.startsWith("/") || LEAVES_ORIGIN.test(current)) return false;
    const decoded = decodeAsciiEscapes(current);
    if (decoded === current) return true;
    current = decoded;
  }
  return false;
}
