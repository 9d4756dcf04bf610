import { createHmac, timingSafeEqual } from "node:crypto";
import type { OidcSettings } from "./oidc-settings";

export const OIDC_FLOW_COOKIE = "receipt_oidc_flow";
/** Long enough to sign in at the provider (a password, a second factor), short enough not to linger. */
export const OIDC_FLOW_SECONDS = 10 * 60;

/** What the callback needs to check that the answer belongs to the sign-in this browser started. */
export type OidcFlow = {
  state: string;
  nonce: string;
  codeVerifier: string;
  next: string;
  expiresAt: number;
};

// Signed with a key derived from the client secret: a cookie planted from elsewhere (a sibling subdomain) cannot
// carry a flow of its own making, and the server keeps no table of flows in progress.
const signingKey = (settings: OidcSettings) =>
  createHmac("sha256", settings.clientSecret).update("receipt oidc flow cookie v1").digest();

const sign = (payload: string, settings: OidcSettings) =>
  createHmac("sha256", signingKey(settings)).update(payload).digest("base64url");

export function sealOidcFlow(flow: OidcFlow, settings: OidcSettings, secure: boolean): string {
  const payload = Buffer.from(JSON.stringify(flow)).toString("base64url");
  return [
    `${OIDC_FLOW_COOKIE}=${payload}.${sign(payload, settings)}`,
    // Only the callback reads it; Lax lets the provider's top-level redirect back carry it.
    "Path=/api/auth/oidc",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${OIDC_FLOW_SECONDS}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedOidcFlowCookie(): string {
  return `${OIDC_FLOW_COOKIE}=; Path=/api/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=0`;
}

/** The flow this browser started, or null when it has none, it was not ours, or it is past its time. */
export function openOidcFlow(
  cookieHeader: string | null,
  settings: OidcSettings,
  now = Date.now(),
): OidcFlow | null {
  const value = cookieHeader
    ?.split(";")
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${OIDC_FLOW_COOKIE}=`))
    ?.slice(OIDC_FLOW_COOKIE.length + 1);
  const [payload, signature] = value?.split(".") ?? [];
  if (!payload || !signature) return null;
  const expected = Buffer.from(sign(payload, settings));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const flow = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as OidcFlow;
    return typeof flow.expiresAt === "number" && flow.expiresAt > now ? flow : null;
  } catch {
    return null;
  }
}
