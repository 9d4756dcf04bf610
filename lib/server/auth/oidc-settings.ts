import { env } from "../env";

export type OidcSettings = {
  issuer: URL;
  clientId: string;
  clientSecret: string;
  /** The button's label: "Sign in with <name>". */
  name: string;
  roleClaim: string;
  scopes: string;
  timeoutMs: number;
  /** RECEIPT_PUBLIC_URL: the origin the provider sends the browser back to; else the request's own. */
  publicUrl: string | undefined;
  /** How many proxies in front of the app to believe about the original host and scheme. */
  trustedProxies: number;
};

/** The OpenID Connect settings, or null when the issuer, client id and secret are not set (passwords only). */
export function oidcSettings(): OidcSettings | null {
  const e = env();
  if (!e.RECEIPT_OIDC_ISSUER || !e.RECEIPT_OIDC_CLIENT_ID || !e.RECEIPT_OIDC_CLIENT_SECRET) return null;
  return {
    issuer: new URL(e.RECEIPT_OIDC_ISSUER),
    clientId: e.RECEIPT_OIDC_CLIENT_ID,
    clientSecret: e.RECEIPT_OIDC_CLIENT_SECRET,
    name: e.RECEIPT_OIDC_NAME,
    roleClaim: e.RECEIPT_OIDC_ROLE_CLAIM,
    scopes: e.RECEIPT_OIDC_SCOPES,
    timeoutMs: e.RECEIPT_OIDC_TIMEOUT_MS,
    publicUrl: e.RECEIPT_PUBLIC_URL,
    trustedProxies: e.RECEIPT_TRUST_PROXY,
  };
}

/** The sign-in button's label when OpenID Connect is configured, for the server-rendered sign-in page. */
export function oidcButtonName(): string | null {
  return oidcSettings()?.name ?? null;
}

/**
 * Where the provider sends the browser back: RECEIPT_PUBLIC_URL when set, else this request's origin — through
 * X-Forwarded-Proto/-Host only when RECEIPT_TRUST_PROXY says a proxy sets them. The provider accepts only the
 * redirect URIs registered for the client, so a forged Host header ends in its error page, not elsewhere.
 */
export function oidcRedirectUri(request: Request, settings: OidcSettings): URL {
  const path = "/api/auth/oidc/callback";
  if (settings.publicUrl) return new URL(path, settings.publicUrl);
  const url = new URL(request.url);
  const forwarded = (name: string) =>
    settings.trustedProxies > 0 ? request.headers.get(name)?.split(",")[0]?.trim() : undefined;
  const protocol = forwarded("x-forwarded-proto") ?? url.protocol.replace(":", "");
  const host = forwarded("x-forwarded-host") ?? request.headers.get("host") ?? url.host;
  return new URL(path, `${protocol === "https" ? "https" : "http"}://${host}`);
}
