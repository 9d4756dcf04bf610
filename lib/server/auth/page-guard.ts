import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { safeNextPath } from "@/lib/dashboard/safe-next-path";
import { needsFirstRunSetup, SESSION_COOKIE, type SessionUser, userForToken } from "./sessions";

const REQUESTED_PATH_HEADER = "x-receipt-requested-path"; // set by proxy.ts

/** The signed-in user of a page request, or null. */
export async function currentPageUser(): Promise<SessionUser | null> {
  return userForToken((await cookies()).get(SESSION_COOKIE)?.value ?? null);
}

/**
 * The dashboard's guard, run by the (dashboard) layout on the server for every page: no session → /sign-in (back
 * to the requested page afterwards); no user at all yet → first-run /setup.
 */
export async function requirePageUser(): Promise<SessionUser> {
  const user = await currentPageUser();
  if (user) return user;
  if (await needsFirstRunSetup()) redirect("/setup");
  const requested = safeNextPath((await headers()).get(REQUESTED_PATH_HEADER));
  redirect(requested === "/" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(requested)}`);
}
