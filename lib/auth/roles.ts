import { z } from "zod";

/**
 * What a signed-in person may do, each role including the one before it (Grafana's Viewer, Editor, Admin):
 * - `viewer` reads everything the dashboard shows;
 * - `responder` also works the queues: triage, reconcile, silences, resolving alerts and problems, retrying deliveries;
 * - `admin` also keeps the system: ingestion keys, the routing config, users and invitations.
 */
export const ROLES = ["viewer", "responder", "admin"] as const;
export type Role = (typeof ROLES)[number];
export const ZRole = z.enum(ROLES);

/** Whether `role` may do what `needed` may. An unknown role (a hand-edited row) may do nothing. */
export function roleAtLeast(role: string, needed: Role): boolean {
  const rank = ROLES.indexOf(role as Role);
  return rank >= 0 && rank >= ROLES.indexOf(needed);
}

export const ROLE_LABELS: Record<Role, string> = {
  viewer: "Viewer",
  responder: "Responder",
  admin: "Admin",
};
