"use client";

import type { ReactNode } from "react";
import type { Role } from "@/lib/auth/roles";
import { useRoleAllows } from "./CurrentUser";
import styles from "./RoleGate.module.css";

const WHO_MAY: Record<Role, string> = {
  viewer: "Everyone signed in",
  responder: "Responders and admins",
  admin: "Only admins",
};

/** The short reason a control is hidden or disabled: "Responders and admins can silence alerts." */
export function roleReason(needed: Role, doing: string): string {
  return `${WHO_MAY[needed]} can ${doing}.`;
}

type Gate = { needs: Role; doing: string };

/** The reason, shown only to a role below `needs`. */
export function RoleNote({ needs, doing }: Gate) {
  if (useRoleAllows(needs)) return null;
  return (
    <p className={styles.note} data-testid="role-note">
      <span className={styles.lock} aria-hidden="true" />
      {roleReason(needs, doing)}
    </p>
  );
}

/** `children` for a role that may use them; the reason instead for one that may not. */
export function RoleGate({ needs, doing, children }: Gate & { children: ReactNode }) {
  if (!useRoleAllows(needs)) return <RoleNote needs={needs} doing={doing} />;
  return <>{children}</>;
}

/**
 * Controls shown but disabled (with the reason above them) for a role below `needs`: the person still sees what
 * could be done and what the current values are.
 */
export function RoleFieldset({ needs, doing, children }: Gate & { children: ReactNode }) {
  const allowed = useRoleAllows(needs);
  return (
    <fieldset className={styles.fieldset} disabled={!allowed} data-role-locked={allowed ? undefined : needs}>
      <RoleNote needs={needs} doing={doing} />
      {children}
    </fieldset>
  );
}
