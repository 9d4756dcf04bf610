import { z } from "zod";
import { parseTimestamp } from "@/lib/contract";
import { TIME_WINDOWS } from "@/lib/dashboard/api-types";

// Query strings of the dashboard's read endpoints (parsed with parseQuery: unknown parameters are errors).
const ZSince = z.string().refine((value) => parseTimestamp(value) !== undefined, {
  message: "expected an RFC 3339 timestamp with a zone",
});

export const ZTrendQuery = z.object({ window: z.enum(TIME_WINDOWS).default("24h") }).strict();

export const ZAttentionQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(50).default(10), since: ZSince.optional() })
  .strict();

export const ZCoverageQuery = z.object({ since: ZSince.optional() }).strict();

export const ZNoQuery = z.object({}).strict();
