import { z } from "zod";
import { TIME_WINDOWS } from "@/lib/dashboard/api-types";
import { ZQueryTimestamp } from "./chain-query";

// Query strings of the dashboard's read endpoints (parsed with parseQuery: unknown parameters are errors).
const ZSince = ZQueryTimestamp;

export const ZTrendQuery = z.object({ window: z.enum(TIME_WINDOWS).default("24h") }).strict();

export const ZAttentionQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(50).default(10), since: ZSince.optional() })
  .strict();

export const ZCoverageQuery = z.object({ since: ZSince.optional() }).strict();

export const ZNoQuery = z.object({}).strict();
