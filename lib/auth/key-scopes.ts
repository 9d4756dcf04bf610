import { z } from "zod";

/** What an ingestion key may do: send records, or read what was sent. */
export const SCOPES = ["ingest", "read"] as const;
export type Scope = (typeof SCOPES)[number];
export const ZScope = z.enum(SCOPES);

export const ZKeyName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "1–64 characters: letters, digits, '.', '_' or '-'");
