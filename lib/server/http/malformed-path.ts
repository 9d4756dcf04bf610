/**
 * URLs whose path cannot be decoded (`/api/v1/chains/%ZZ`, a truncated or invalid UTF-8 sequence such as `%E0%A4%A`
 * or an encoded surrogate `%ED%A0%80`). Next.js throws while decoding such a segment into a route parameter and answers
 * a bare 500, before any handler runs; the proxy refuses them first with a 400 that says why.
 */

const API_PREFIX = "/api/";

/** A 400 for a path that cannot be decoded (or, outside the API, holds NUL); `undefined` when the path is fine. */
export function refuseMalformedPath(pathname: string): Response | undefined {
  if (!pathname.includes("%")) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return refusal(pathname, "invalid_percent_encoding", "the path is not valid percent-encoded UTF-8");
  }
  // API handlers name the parameter that holds NUL themselves (lib/server/http/path-params.ts); pages cannot.
  if (!pathname.startsWith(API_PREFIX) && decoded.includes("\u0000"))
    return refusal(pathname, "unstorable_string", "the path cannot hold NUL");
  return undefined;
}

function refusal(pathname: string, code: string, message: string): Response {
  if (!pathname.startsWith(API_PREFIX)) {
    return new Response(`400 Bad Request: ${message}\n`, {
      status: 400,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  return Response.json(
    {
      error: {
        code: "invalid_path",
        message: "the URL path is invalid",
        issues: [{ path: "$.path", code, message }],
      },
    },
    { status: 400 },
  );
}
