import { z } from "zod";
import { CHAIN_SORTS, resolveSince, splitStates } from "@/lib/dashboard/chain-list-query";
import { ZCursor } from "@/lib/dashboard/cursor";
import { SEARCH_QUERY_MAX } from "@/lib/dashboard/search";
import {
  isStorableString,
  parseStorableTimestamp,
  STATES,
  UNSTORABLE_STRING,
  UNSTORABLE_STRING_MESSAGE,
} from "@/lib/contract";
import { ApiError, type ApiIssue } from "../http/api-error";

/** A query timestamp: RFC 3339 with a zone, in years 0001–9999 like every stored one. */
export const ZQueryTimestamp = z.string().refine((value) => parseStorableTimestamp(value) !== undefined, {
  message: "expected an RFC 3339 timestamp with a zone, in years 0001 to 9999",
});
const ZTimestamp = ZQueryTimestamp;
const ZLabel = z
  .string()
  .regex(/^[a-z][a-z0-9_.-]{0,62}:.{0,256}$/s, "expected key:value with a lower-case label key");

/** `since`: relative (`1h`, `24h`, `7d`), resolved when the request is read, or an absolute timestamp. */
const ZSince = z.string().transform((value, ctx) => {
  const since = resolveSince(value, Date.now());
  if (since) return since.toISOString();
  ctx.addIssue({
    code: "custom",
    message: "expected a relative range (15m, 1h, 24h, 7d) or an RFC 3339 timestamp with a zone",
  });
  return z.NEVER;
});

/** One or more states: `state=a,b` or `state=a&state=b`. */
const ZStates = z
  .union([z.string(), z.array(z.string()).max(20)])
  .transform(splitStates)
  .pipe(z.array(z.enum(STATES)).max(STATES.length));

export const ZChainQuery = z
  .object({
    state: ZStates.optional(),
    server: z.string().min(1).max(128).optional(),
    client: z.string().min(1).max(128).optional(),
    tool: z.string().min(1).max(128).optional(),
    session: z.string().min(1).max(128).optional(),
    reason: z.string().min(1).max(128).optional(),
    label: z.array(ZLabel).max(16).default([]),
    since: ZSince.optional(),
    until: ZTimestamp.optional(),
    order: z.enum(["desc", "asc"]).default("desc"),
    sort: z.enum(CHAIN_SORTS).default("time"),
    cursor: ZCursor.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();

export type ChainQuery = z.infer<typeof ZChainQuery>;

/** Query string → validated query; repeated `label` parameters are all kept, other repeats are errors. */
export function parseQuery<T extends z.ZodType>(schema: T, url: URL, repeatable: string[] = []): z.infer<T> {
  const raw: Record<string, string | string[]> = {};
  const unstorable: ApiIssue[] = [];
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    if (!isStorableString(key) || values.some((v) => !isStorableString(v))) {
      unstorable.push({
        path: `$.query.${JSON.stringify(key).slice(1, -1)}`,
        code: UNSTORABLE_STRING,
        message: UNSTORABLE_STRING_MESSAGE,
      });
    }
    raw[key] = repeatable.includes(key) ? values : values.length === 1 ? (values[0] as string) : values;
  }
  if (unstorable.length > 0) throw new ApiError(400, "invalid_query", "invalid query parameters", unstorable);
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new ApiError(
    400,
    "invalid_query",
    "invalid query parameters",
    parsed.error.issues.map((issue) => ({
      path: `$.query${issue.path.length ? `.${String(issue.path[0])}` : ""}`,
      // A custom rule names its own code (the cursor's invalid_cursor).
      code:
        issue.code === "custom" && typeof issue.params?.code === "string" ? issue.params.code : issue.code,
      message: issue.code === "unrecognized_keys" ? "unknown query parameter" : issue.message,
    })),
  );
}

export const ZStatsQuery = z.object({ since: ZTimestamp.optional() }).strict();

export const ZSearchQuery = z
  .object({
    // Not trimmed: a refused token's offsets count from the query as sent.
    q: z
      .string()
      .refine((q) => q.trim().length > 0, "expected an id or a token to search for")
      .max(SEARCH_QUERY_MAX, `expected at most ${SEARCH_QUERY_MAX} characters`),
  })
  .strict();
