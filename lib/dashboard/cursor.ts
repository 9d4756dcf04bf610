import { z } from "zod";
import { ID_PATTERN, parseStorableTimestamp } from "@/lib/contract";

/**
 * Keyset position in a list ordered by (observedAt, chainId); a list sorted by danger puts the state's danger
 * rank (its index in STATE_SEVERITY_ORDER) first.
 */
export type Cursor = { observedAt: string; chainId: string; danger?: number };

export function encodeCursor(cursor: Cursor): string {
  const parts: (string | number)[] = [cursor.observedAt, cursor.chainId];
  if (cursor.danger !== undefined) parts.push(cursor.danger);
  return Buffer.from(JSON.stringify(parts)).toString("base64url");
}

/** A cursor this API returned (base64url of `[observedAt, chainId, danger?]`), or undefined for anything else. */
export function parseCursor(value: string): Cursor | undefined {
  try {
    const decoded = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as unknown;
    if (!Array.isArray(decoded) || decoded.length < 2 || decoded.length > 3) return undefined;
    const [observedAt, chainId, danger] = decoded as unknown[];
    const dangerOk = danger === undefined || (Number.isInteger(danger) && (danger as number) >= 0);
    if (
      typeof observedAt === "string" &&
      typeof chainId === "string" &&
      parseStorableTimestamp(observedAt) !== undefined &&
      ID_PATTERN.test(chainId) &&
      dangerOk
    )
      return danger === undefined
        ? { observedAt, chainId }
        : { observedAt, chainId, danger: danger as number };
  } catch {}
  return undefined;
}

/**
 * A `cursor` query parameter, decoded while the query is parsed: an unknown one is an `invalid_cursor` issue, an
 * empty one (`?cursor=`) means the first page.
 */
export const ZCursor = z
  .string()
  .max(512)
  .transform((value, ctx) => {
    if (value === "") return undefined;
    const cursor = parseCursor(value);
    if (cursor) return cursor;
    ctx.addIssue({
      code: "custom",
      message: "the cursor is not one this API returned",
      params: { code: "invalid_cursor" },
    });
    return z.NEVER;
  });
