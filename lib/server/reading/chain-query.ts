import { z } from "zod";
import { parseTimestamp, STATES } from "@/lib/contract";
import { ApiError } from "../http/api-error";

const ZTimestamp = z.string().refine((value) => parseTimestamp(value) !== undefined, {
  message: "expected an RFC 3339 timestamp with a zone",
});
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
    label: z.array(ZLabel).max(16).default([]),
    since: ZTimestamp.optional(),
    until: ZTimestamp.optional(),
    order: z.enum(["desc", "asc"]).default("desc"),
    cursor: z.string().max(512).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();

export type ChainQuery = z.infer<typeof ZChainQuery>;

export type Cursor = { observedAt: string; chainId: string };

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.observedAt, cursor.chainId])).toString("base64url");
}

export function decodeCursor(value: string): Cursor {
  try {
    const [observedAt, chainId] = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as unknown[];
    if (
      typeof observedAt === "string" &&
      typeof chainId === "string" &&
      parseTimestamp(observedAt) !== undefined
    ) {
      return { observedAt, chainId };
    }
  } catch {}
  throw new ApiError(400, "invalid_query", "the cursor is not one this API returned", [
    { path: "$.query.cursor", code: "invalid_cursor", message: "unrecognised cursor" },
  ]);
}

/** Query string → validated query; repeated `label` parameters are all kept, other repeats are errors. */
export function parseQuery<T extends z.ZodType>(schema: T, url: URL, repeatable: string[] = []): z.infer<T> {
  const raw: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    raw[key] = repeatable.includes(key) ? values : values.length === 1 ? (values[0] as string) : values;
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new ApiError(
    400,
    "invalid_query",
    "invalid query parameters",
    parsed.error.issues.map((issue) => ({
      path: `$.query${issue.path.length ? `.${String(issue.path[0])}` : ""}`,
      code: issue.code,
      message: issue.code === "unrecognized_keys" ? "unknown query parameter" : issue.message,
    })),
  );
}

export const ZStatsQuery = z.object({ since: ZTimestamp.optional() }).strict();
