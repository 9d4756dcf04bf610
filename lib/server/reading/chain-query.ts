import { z } from "zod";
import { ZCursor } from "@/lib/dashboard/cursor";
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

export const ZChainQuery = z
  .object({
    state: z.enum(STATES).optional(),
    server: z.string().min(1).max(128).optional(),
    client: z.string().min(1).max(128).optional(),
    tool: z.string().min(1).max(128).optional(),
    session: z.string().min(1).max(128).optional(),
    reason: z.string().min(1).max(128).optional(),
    label: z.array(ZLabel).max(16).default([]),
    since: ZTimestamp.optional(),
    until: ZTimestamp.optional(),
    order: z.enum(["desc", "asc"]).default("desc"),
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
