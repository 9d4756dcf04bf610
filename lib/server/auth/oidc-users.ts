import type { OidcProfile } from "@/lib/auth/oidc-identity";
import { uniqueUsername } from "@/lib/auth/oidc-identity";
import { appendAuditEvent } from "../db/audit-events";
import { getPrisma } from "../db/client";
import {
  findUserByOidcIdentity,
  findUsernamesStartingWith,
  insertOidcUser,
  lockOidcUserCreation,
  refreshOidcUserProfile,
} from "../db/oidc-users";

export type OidcUser = { id: string; username: string; role: string };
export type OidcUserOutcome = { user: OidcUser } | { refused: "oidc_user_disabled" };

/** Room for a "-NN" suffix when the name is taken. */
const PREFIX_LENGTH = 54;

/**
 * The user behind a verified identity: the one linked to (issuer, sub), its name and email refreshed; or, on the
 * first sign-in, a new one with the claimed role (else viewer), created together with its audit event. A disabled
 * user is refused and nothing is written. An existing password user with the same name is never linked: the new
 * user gets a free name beside it.
 */
export async function userForOidcIdentity(issuer: string, profile: OidcProfile): Promise<OidcUserOutcome> {
  const existing = await findUserByOidcIdentity(getPrisma(), issuer, profile.subject);
  if (existing) return signInExisting(existing, profile);
  return getPrisma().$transaction(async (tx) => {
    await lockOidcUserCreation(tx);
    const raced = await findUserByOidcIdentity(tx, issuer, profile.subject);
    if (raced) return signInExisting(raced, profile, tx);
    const taken = await findUsernamesStartingWith(tx, profile.usernameBase.slice(0, PREFIX_LENGTH));
    const created = await insertOidcUser(tx, {
      username: uniqueUsername(profile.usernameBase, taken),
      role: profile.role,
      displayName: profile.displayName,
      email: profile.email,
      oidcIssuer: issuer,
      oidcSubject: profile.subject,
    });
    await appendAuditEvent(tx, {
      actorUserId: created.id,
      actor: created.username,
      action: "user.oidc_create",
      targetType: "user",
      targetId: created.id,
      after: {
        username: created.username,
        role: created.role,
        displayName: profile.displayName,
        email: profile.email,
        oidcIssuer: issuer,
      },
    });
    return { user: { id: created.id, username: created.username, role: created.role } };
  });
}

async function signInExisting(
  user: OidcUser & { disabledAt: Date | null },
  profile: OidcProfile,
  db: Parameters<typeof refreshOidcUserProfile>[0] = getPrisma(),
): Promise<OidcUserOutcome> {
  if (user.disabledAt) return { refused: "oidc_user_disabled" };
  await refreshOidcUserProfile(db, user.id, { displayName: profile.displayName, email: profile.email });
  return { user: { id: user.id, username: user.username, role: user.role } };
}
