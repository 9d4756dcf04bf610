"use client";

import { createContext, type ReactNode, useContext } from "react";
import { type Role, roleAtLeast } from "@/lib/auth/roles";

/** Who is signed in, as the (dashboard) layout read it on the server for this page. */
export type CurrentUser = { username: string; role: Role };

const CurrentUserContext = createContext<CurrentUser | null>(null);

/**
 * Gives every dashboard component the signed-in user. It only decides what the page shows: the API checks the role
 * on every request, whatever the page offers.
 */
export function CurrentUserProvider({ user, children }: { user: CurrentUser; children: ReactNode }) {
  return <CurrentUserContext.Provider value={user}>{children}</CurrentUserContext.Provider>;
}

export function useCurrentUser(): CurrentUser | null {
  return useContext(CurrentUserContext);
}

/** Whether the signed-in user's role may do what `needed` may; outside the dashboard (no user) nothing is allowed. */
export function useRoleAllows(needed: Role): boolean {
  const user = useCurrentUser();
  return user !== null && roleAtLeast(user.role, needed);
}
