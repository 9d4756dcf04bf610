import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { safeNextPath } from "@/lib/dashboard/safe-next-path";
import { isDatabaseUnavailable } from "../db/availability";
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

/** The page path (and query) proxy.ts saw for this request; "/" when it is missing or unsafe. */
export async function requestedPagePath(): Promise<string> {
  return safeNextPath((await headers()).get(REQUESTED_PATH_HEADER));
}

/** What a page's server-side read gives back instead of throwing when PostgreSQL cannot be reached. */
export const DATABASE_UNAVAILABLE = Symbol("database unavailable");

/**
 * Runs a page's server-side read (guard, lookups); an unreachable database becomes DATABASE_UNAVAILABLE so the page
 * can say so. Anything else, redirects included, is thrown on.
 */
export async function unlessDatabaseDown<T>(
  read: () => Promise<T>,
): Promise<T | typeof DATABASE_UNAVAILABLE> {
  try {
    return await read();
  } catch (error) {
    if (isDatabaseUnavailable(error)) return DATABASE_UNAVAILABLE;
    throw error;
  }
}
