import * as client from "openid-client";
import { type OidcErrorCode, profileFromClaims } from "@/lib/auth/oidc-identity";
import { type OidcFlow, OIDC_FLOW_SECONDS } from "./oidc-flow-cookie";
import { type OidcSettings, oidcRedirectUri } from "./oidc-settings";
import { type OidcUserOutcome, userForOidcIdentity } from "./oidc-users";

/** A sign-in that cannot go on: the browser goes back to /sign-in with `code`; `cause` is for the server's log. */
export class OidcFailure extends Error {
  constructor(
    readonly code: OidcErrorCode,
    readonly cause?: unknown,
  ) {
    super(code);
  }
}

let cached: { key: string; configuration: Promise<client.Configuration> } | undefined;

/**
 * The provider's metadata and keys, discovered on first use and kept for the process: a provider that is down at
 * start delays nothing, and a failed discovery is not kept, so the next sign-in tries again.
 */
function providerConfiguration(settings: OidcSettings): Promise<client.Configuration> {
  const key = `${settings.issuer.href} ${settings.clientId}`;
  if (cached?.key === key) return cached.configuration;
  const configuration = client.discovery(
    settings.issuer,
    settings.clientId,
    undefined,
    // The registration default (RFC 7591): every provider supports it.
    client.ClientSecretBasic(settings.clientSecret),
    {
      timeout: settings.timeoutMs / 1000,
      // http only reaches here for a provider on this host (lib/server/env.ts refuses it elsewhere).
      execute: settings.issuer.protocol === "http:" ? [client.allowInsecureRequests] : [],
    },
  );
  const entry = { key, configuration };
  cached = entry;
  configuration.catch(() => {
    if (cached === entry) cached = undefined;
  });
  return configuration;
}

/** The provider's authorization URL for a new flow, and the flow to keep in this browser's cookie. */
export async function startOidcFlow(
  request: Request,
  settings: OidcSettings,
  next: string,
): Promise<{ location: URL; flow: OidcFlow }> {
  const configuration = await providerConfiguration(settings).catch((error) => {
    throw new OidcFailure("oidc_unavailable", error);
  });
  const flow: OidcFlow = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    codeVerifier: client.randomPKCECodeVerifier(),
    next,
    expiresAt: Date.now() + OIDC_FLOW_SECONDS * 1000,
  };
  const location = client.buildAuthorizationUrl(configuration, {
    redirect_uri: oidcRedirectUri(request, settings).href,
    scope: settings.scopes,
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(flow.codeVerifier),
    code_challenge_method: "S256",
  });
  return { location, flow };
}

/**
 * Checks the provider's answer against the flow this browser started (state, then code + PKCE verifier at the
 * token endpoint, then the ID token's signature, issuer, audience, expiry and nonce), reads the claims (the ID
 * token's, completed by userinfo) and finds or creates the user.
 */
export async function finishOidcFlow(
  request: Request,
  settings: OidcSettings,
  flow: OidcFlow | null,
): Promise<OidcUserOutcome> {
  const answer = new URL(request.url).searchParams;
  if (answer.has("error")) throw new OidcFailure("oidc_denied", answer.get("error"));
  if (!flow) throw new OidcFailure("oidc_expired");
  if (answer.get("state") !== flow.state) throw new OidcFailure("oidc_state_mismatch");
  const configuration = await providerConfiguration(settings).catch((error) => {
    throw new OidcFailure("oidc_unavailable", error);
  });
  // The URL the provider was given: the callback's public address, with the answer's parameters.
  const callbackUrl = oidcRedirectUri(request, settings);
  callbackUrl.search = answer.toString();
  const claims = await verifiedClaims(configuration, callbackUrl, flow).catch((error) => {
    throw new OidcFailure(isUnreachable(error) ? "oidc_unavailable" : "oidc_rejected", error);
  });
  const issuer = configuration.serverMetadata().issuer;
  return userForOidcIdentity(issuer, profileFromClaims(claims, settings.roleClaim));
}

async function verifiedClaims(
  configuration: client.Configuration,
  callbackUrl: URL,
  flow: OidcFlow,
): Promise<Record<string, unknown>> {
  const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
    pkceCodeVerifier: flow.codeVerifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
    idTokenExpected: true,
  });
  const idClaims = tokens.claims();
  if (!idClaims) throw new Error("the token response has no ID token");
  if (!configuration.serverMetadata().userinfo_endpoint) return idClaims;
  // Many providers put profile claims (and a custom role claim) only in userinfo; the ID token's own win.
  const userinfo = await client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
  return { ...userinfo, ...idClaims };
}

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT"]);

/** A network failure or a timeout (anywhere in the cause chain), as opposed to an answer that did not verify. */
function isUnreachable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { name, code, message, cause } = current as {
      name?: string;
      code?: string;
      message?: string;
      cause?: unknown;
    };
    if (name === "TimeoutError" || name === "AbortError") return true;
    if (code && (UNREACHABLE_CODES.has(code) || code.startsWith("UND_ERR"))) return true;
    if (name === "TypeError" && message === "fetch failed") return true;
    current = cause;
  }
  return false;
}
