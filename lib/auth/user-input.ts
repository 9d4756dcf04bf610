import { z } from "zod";
import { ROLES, ZRole } from "./roles";

/** A username: the same rule as sign-in and first-run setup. */
export const ZUsername = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "1–64 letters, digits, '.', '_' or '-'");

/** A new password: at least 8 characters (a passphrase is welcome), at most 256. */
export const ZNewPassword = z.string().min(8, "at least 8 characters").max(256, "at most 256 characters");

/** A display name: trimmed; empty clears it. */
export const ZDisplayName = z
  .string()
  .trim()
  .max(128, "at most 128 characters")
  .transform((name) => (name === "" ? null : name));

export const INVITE_HOURS = { min: 1, max: 168, default: 72 } as const;

export const ZCreateInviteBody = z.strictObject({
  role: ZRole,
  expiresInHours: z
    .number()
    .int("whole hours")
    .min(INVITE_HOURS.min, `at least ${INVITE_HOURS.min} hour`)
    .max(INVITE_HOURS.max, `at most ${INVITE_HOURS.max} hours (7 days)`)
    .default(INVITE_HOURS.default),
});

export const ZAcceptInviteBody = z.strictObject({
  username: ZUsername,
  password: ZNewPassword,
  displayName: ZDisplayName.optional(),
});

export const ZUpdateUserBody = z
  .strictObject({
    role: ZRole.optional(),
    disabled: z.boolean().optional(),
    displayName: ZDisplayName.nullable().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), "nothing to change");

export const ZChangePasswordBody = z.strictObject({
  currentPassword: z.string().min(1, "required").max(256),
  newPassword: ZNewPassword,
});

export const ZTeamQuery = z.strictObject({
  role: z.enum(ROLES).optional(),
  include: z.literal("disabled", "only 'disabled'").optional(),
});
