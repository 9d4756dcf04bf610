import type { FetchLike } from "./sdk/structural";
import type { AuthChallenge } from "./record-types";
import { iso } from "./time";

/**
 * Streamable HTTP without an auth provider turns a 401 into a `StreamableHTTPError` that has
 * no headers, so the challenge has to be read from the response on its way in. Only the
 * challenge's parameters are kept; request headers (and so any token) are never looked at.
 */
export type AuthObserver = { challenge?: AuthChallenge; resolvedAt?: string };

export function challengeCapturingFetch(observer: AuthObserver, inner: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status === 401 || response.status === 403) {
      observer.challenge = parseChallenge(response.status, response.headers.get("www-authenticate"), input);
      observer.resolvedAt = undefined;
    } else if (response.ok && observer.challenge && !observer.resolvedAt) {
      // A later request to the challenged endpoint that got through means new credentials
      // resolved it; a 200 from an auth-metadata URL fetched through the same function does not.
      if (resourceWithoutQuery(input) === observer.challenge.resource) observer.resolvedAt = iso(Date.now());
    }
    return response;
  };
}

export function parseChallenge(
  status: 401 | 403,
  header: string | null,
  input: string | URL,
  at: number = Date.now(),
): AuthChallenge {
  const challenge: AuthChallenge = { status, at: iso(at) };
  const resource = resourceWithoutQuery(input);
  if (resource) challenge.resource = resource;
  if (!header || !/^\s*bearer\b/i.test(header)) return challenge;
  const error = param(header, "error");
  if (error) challenge.error = error.slice(0, 64);
  const scope = param(header, "scope");
  if (scope) challenge.requiredScope = scope.slice(0, 512);
  const metadata = param(header, "resource_metadata");
  if (metadata && isPlainUrl(metadata)) challenge.resourceMetadataUrl = metadata;
  return challenge;
}

/** One auth-param of a challenge: quoted (with \" escapes) or a bare token. */
function param(header: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|[\\s,])${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^\\s,]+))`, "i").exec(
    header,
  );
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : match[2];
}

function resourceWithoutQuery(input: string | URL): string | undefined {
  const raw = typeof input === "string" ? input : input.href;
  try {
    const url = new URL(raw);
    url.search = "";
    url.hash = "";
    // Userinfo could carry a credential; the resource never needs it.
    url.username = "";
    url.password = "";
    return url.href;
  } catch {
    return undefined;
  }
}

/**
 * An http(s) URL without userinfo, query or fragment: what the record's URLs may hold (contract §1).
 * A metadata URL that carries more is left out rather than rewritten into a URL the server never sent.
 */
function isPlainUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === "https:" || url.protocol === "http:") &&
      url.username === "" &&
      url.password === "" &&
      !value.includes("?") &&
      !value.includes("#")
    );
  } catch {
    return false;
  }
}
