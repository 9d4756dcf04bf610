import { type NextRequest, NextResponse } from "next/server";
import { refuseMalformedPath } from "@/lib/server/http/malformed-path";

/** Header through which a page's layout learns the URL it guards, to send a signed-out visitor back after sign-in. */
const REQUESTED_PATH_HEADER = "x-receipt-requested-path";

// Not an auth check (the (dashboard) layout does that against the session table): it only tells the layout which
// page was asked for, so a shared link still lands on its chain after signing in.
export function proxy(request: NextRequest) {
  const malformed = refuseMalformedPath(request.nextUrl.pathname);
  if (malformed) return malformed;
  const headers = new Headers(request.headers);
  headers.set(REQUESTED_PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // API paths only when percent-encoded: refuseMalformedPath is all the proxy does for them. /metrics is no page.
  matcher: ["/((?!api/|_next/|metrics$|favicon\\.ico).*)", "/api/(.*%.*)"],
};
