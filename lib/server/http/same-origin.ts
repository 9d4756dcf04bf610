import { ApiError } from "./api-error";

const forbiddenOrigin = (path: string, message: string) =>
  new ApiError(403, "forbidden_origin", "cross-origin request refused", [
    { path, code: "forbidden_origin", message },
  ]);

/**
 * Writes carried by the session cookie (and the sign-in that sets it) must come from this site's own pages. A
 * browser names the page in `Origin` on every such request; a client without one (curl, a test) is no browser
 * and carries no ambient cookie. `Origin: null` (sandboxed frames, file: pages, some redirects), a malformed
 * value, or another origin is refused; so is `Sec-Fetch-Site` other than same-origin or none.
 */
export function rejectForeignOrigin(request: Request): void {
  const origin = request.headers.get("origin");
  if (origin !== null && !isOwnOrigin(origin, request)) {
    throw forbiddenOrigin(
      "$.headers.origin",
      `the request comes from ${originInMessage(origin)}, not from this site`,
    );
  }
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    throw forbiddenOrigin(
      '$.headers["sec-fetch-site"]',
      "the browser says the request comes from another site",
    );
  }
}

function isOwnOrigin(origin: string, request: Request): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  // Exactly a serialised origin ("http://host:port"): no path, credentials, or anything a browser never sends.
  if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.origin !== origin) return false;
  // Behind a TLS proxy the app sees http while the page was https: the host decides.
  return origin === new URL(request.url).origin || parsed.host === request.headers.get("host")?.toLowerCase();
}

function originInMessage(origin: string): string {
  if (origin === "null") return "an opaque origin (null)";
  return origin.length > 100 || /[^\x20-\x7e]/.test(origin) ? "a malformed origin" : JSON.stringify(origin);
}
