import { z } from "zod";

/**
 * What a key may do: send records (`ingest`), read what was sent (`read`), or keep the routing config as code from
 * CI (`admin`: read, check and apply the routing config, and everything `read` may). No key may manage keys,
 * triage chains, silence alerts or retry deliveries: those stay with signed-in dashboard users.
 */
export const SCOPES = ["ingest", "read", "admin"] as const;
export type Scope = (typeof SCOPES)[number];
export const ZScope = z.enum(SCOPES);

export const ZKeyName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "1–64 characters: letters, digits, '.', '_' or '-'");
