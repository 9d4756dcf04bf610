import type { OidcErrorCode } from "@/lib/auth/oidc-identity";
import { safeNextPath } from "@/lib/dashboard/safe-next-path";
import { apiRoute } from "../http/api-route";
import { clearedOidcFlowCookie, openOidcFlow, sealOidcFlow } from "./oidc-flow-cookie";
import { finishOidcFlow, OidcFailure, startOidcFlow } from "./oidc-flow";
import { oidcSettings } from "./oidc-settings";
import { needsFirstRunSetup, sessionCookie, startSession } from "./sessions";

const isHttps = (request: Request) =>
  new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";

/** A redirect within this site (a relative Location: right behind any proxy), never cached. */
function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 302, headers });
}

/** Back to the sign-in page with a code it explains; the flow cookie goes with it, used or not. */
function failed(error: unknown, next = "/"): Response {
  const code: OidcErrorCode = error instanceof OidcFailure ? error.code : "oidc_failed";
  const cause = error instanceof OidcFailure ? error.cause : error;
  // The operator's clue (the provider's error, a timeout, a signature that did not verify); the user gets the code.
  console.error(
    `receipt: OpenID Connect sign-in failed (${code})`,
    cause instanceof Error ? cause.message : (cause ?? ""),
  );
  const query = new URLSearchParams({ error: code, ...(next !== "/" ? { next } : {}) });
  return redirect(`/sign-in?${query}`, [clearedOidcFlowCookie()]);
}

/** `GET /api/auth/oidc/start?next=/path`: to the provider, with this browser's flow in a short-lived cookie. */
export const oidcStartRoute = apiRoute({ scope: "public" }, async ({ request }) => {
  const next = safeNextPath(new URL(request.url).searchParams.get("next"));
  const settings = oidcSettings();
  if (!settings) return failed(new OidcFailure("oidc_not_configured"), next);
  try {
    // The first admin is made with a password at /setup; until then nobody signs in at all.
    if (await needsFirstRunSetup()) return redirect("/setup");
    const { location, flow } = await startOidcFlow(request, settings, next);
    return redirect(location.href, [sealOidcFlow(flow, settings, isHttps(request))]);
  } catch (error) {
    return failed(error, next);
  }
});

/** `GET /api/auth/oidc/callback`: the provider's answer; a session and `next`, or /sign-in with an error code. */
export const oidcCallbackRoute = apiRoute({ scope: "public" }, async ({ request }) => {
  const settings = oidcSettings();
  if (!settings) return failed(new OidcFailure("oidc_not_configured"));
  const flow = openOidcFlow(request.headers.get("cookie"), settings);
  try {
    const outcome = await finishOidcFlow(request, settings, flow);
    if ("refused" in outcome) throw new OidcFailure(outcome.refused);
    const session = await startSession(outcome.user, "oidc", request);
    return redirect(safeNextPath(flow?.next), [
      clearedOidcFlowCookie(),
      sessionCookie(session.token, isHttps(request)),
    ]);
  } catch (error) {
    return failed(error, flow?.next);
  }
});
