import { type NextRequest, NextResponse } from "next/server";
import { refuseMalformedPath } from "@/lib/server/http/malformed-path";
import { createNonce, NONCE_HEADER, pageContentSecurityPolicy } from "@/lib/server/http/security-headers";

/** Header through which a page's layout learns the URL it guards, to send a signed-out visitor back after sign-in. */
const REQUESTED_PATH_HEADER = "x-receipt-requested-path";

// Not an auth check (the (dashboard) layout does that against the session table): it only tells the layout which
// page was asked for, so a shared link still lands on its chain after signing in.
// The page's CSP goes on the request too: Next.js reads the nonce from it and puts it on the scripts it renders.
export function proxy(request: NextRequest) {
  const malformed = refuseMalformedPath(request.nextUrl.pathname);
  if (malformed) return malformed;
  // The API paths the matcher lets in are only checked for their encoding: they are no pages.
  if (request.nextUrl.pathname.startsWith("/api/")) return NextResponse.next();
  const nonce = createNonce();
  const policy = pageContentSecurityPolicy(nonce, process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set(REQUESTED_PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search);
  headers.set(NONCE_HEADER, nonce);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  // API paths only when percent-encoded: refuseMalformedPath is all the proxy does for them. /metrics and the
  // OTLP endpoint /v1/traces are no pages.
  matcher: ["/((?!api/|_next/|metrics$|v1/traces$|favicon\\.ico).*)", "/api/(.*%.*)"],
};
