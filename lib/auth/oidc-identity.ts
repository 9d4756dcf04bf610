import { ROLES, type Role } from "./roles";

/** The rule every username follows (the sign-in form's and the setup's): 1–64 of these characters. */
const USERNAME_MAX = 64;
const NOT_IN_USERNAME = /[^A-Za-z0-9._-]+/g;

export type OidcProfile = {
  subject: string;
  /** The username asked for: unique only once `uniqueUsername` has checked it against the taken ones. */
  usernameBase: string;
  displayName: string | null;
  email: string | null;
  /** The role the provider's claim names, else viewer: applied on the first sign-in only. */
  role: Role;
};

const text = (value: unknown, max: number): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, max) : null;

/** A value made of the username's characters, or null when nothing of it is left. */
export function usernameFrom(value: string | null): string | null {
  const cleaned = value
    ?.normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(NOT_IN_USERNAME, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, USERNAME_MAX);
  return cleaned ? cleaned : null;
}

/** A role only when the claim names one exactly ("admin", " Admin " after trimming and lower-casing); else viewer. */
export function roleFromClaim(value: unknown): Role {
  const named = typeof value === "string" ? value.trim().toLowerCase() : "";
  return (ROLES as readonly string[]).includes(named) ? (named as Role) : "viewer";
}

/**
 * What a first sign-in makes of the provider's claims: the username from `preferred_username`, else the email's
 * local part, else `sub`; the display name and email as given (cut to the columns' sensible sizes).
 */
export function profileFromClaims(claims: Record<string, unknown>, roleClaim: string): OidcProfile {
  const subject = String(claims.sub);
  const email = text(claims.email, 320);
  const usernameBase =
    usernameFrom(text(claims.preferred_username, 256)) ??
    usernameFrom(email?.split("@")[0] ?? null) ??
    usernameFrom(subject) ??
    "user";
  return {
    subject,
    usernameBase,
    displayName: text(claims.name, 128),
    email,
    role: roleFromClaim(claims[roleClaim]),
  };
}

/** `base`, or `base-2`, `base-3`… : the first one not taken (an existing password user keeps their name). */
export function uniqueUsername(base: string, taken: ReadonlySet<string>): string {
  // `taken` holds lower-cased names: one differing only in case is the same name.
  if (!taken.has(base.toLowerCase())) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = base.slice(0, USERNAME_MAX - suffix.length) + suffix;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}

/** Why an OpenID Connect sign-in ended on /sign-in: the code in `?error=` and what the page says about it. */
export const OIDC_ERRORS = {
  oidc_not_configured: "Single sign-on is not set up on this server.",
  oidc_unavailable:
    "The sign-in provider could not be reached. Try again in a moment, or sign in with a password.",
  oidc_denied: "The sign-in provider did not sign you in (it refused or you cancelled). Try again.",
  oidc_expired: "The sign-in took too long or was started in another browser. Start again.",
  oidc_state_mismatch: "The sign-in answer did not match the sign-in this browser started. Start again.",
  oidc_rejected: "The sign-in provider's answer could not be verified. Start again, or ask an admin.",
  oidc_user_disabled: "This account is disabled. Ask an admin to enable it.",
  oidc_failed: "Signing in did not work this time. Try again in a moment.",
} as const;
export type OidcErrorCode = keyof typeof OIDC_ERRORS;

export function oidcErrorMessage(code: unknown): string | null {
  return typeof code === "string" && Object.hasOwn(OIDC_ERRORS, code)
    ? OIDC_ERRORS[code as OidcErrorCode]
    : null;
}
