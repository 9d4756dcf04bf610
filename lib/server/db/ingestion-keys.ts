import type { Scope } from "@/lib/auth/key-scopes";
import { getPrisma } from "./client";
import { poolSql, prepared } from "./sql";

export type IngestionKeySummary = {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

const summary = {
  id: true,
  name: true,
  prefix: true,
  scopes: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
};

export class KeyNameTakenError extends Error {}

export async function insertIngestionKey(input: {
  name: string;
  keyHash: string;
  prefix: string;
  scopes: Scope[];
}): Promise<IngestionKeySummary> {
  try {
    return (await getPrisma().ingestionKey.create({ data: input, select: summary })) as IngestionKeySummary;
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") throw new KeyNameTakenError(input.name);
    throw error;
  }
}

export async function listIngestionKeys(): Promise<IngestionKeySummary[]> {
  return (await getPrisma().ingestionKey.findMany({
    select: summary,
    orderBy: { createdAt: "asc" },
  })) as IngestionKeySummary[];
}

/** Marks the key revoked; returns false when no active key has that name. */
export async function revokeIngestionKey(name: string, now = new Date()): Promise<boolean> {
  const { count } = await getPrisma().ingestionKey.updateMany({
    where: { name, revokedAt: null },
    data: { revokedAt: now },
  });
  return count > 0;
}

const FIND_ACTIVE_KEY = prepared(
  "receipt_find_active_key",
  `select id::text, name, scopes, last_used_at as "lastUsedAt"
      from ingestion_keys where key_hash = $1 and revoked_at is null`,
);

/** Asked on every API request with a key: one plain statement (see sql.ts), not a Prisma query. */
export async function findActiveKeyByHash(keyHash: string) {
  const [found] = await poolSql().query<{
    id: string;
    name: string;
    scopes: string[];
    lastUsedAt: Date | null;
  }>(FIND_ACTIVE_KEY, [keyHash]);
  return found ?? null;
}

/** Last-used time is informational: written at most once a minute per key, not on every request. */
export async function touchIngestionKey(
  id: string,
  lastUsedAt: Date | null,
  now = new Date(),
): Promise<void> {
  if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < 60_000) return;
  await getPrisma().ingestionKey.update({ where: { id }, data: { lastUsedAt: now } });
}
