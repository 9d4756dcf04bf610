import type { Scope } from "@/lib/auth/key-scopes";
import type { Prisma } from "@/lib/generated/prisma/client";
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

export async function insertIngestionKey(
  input: { name: string; keyHash: string; prefix: string; scopes: Scope[] },
  db: Prisma.TransactionClient = getPrisma(),
): Promise<IngestionKeySummary> {
  try {
    return (await db.ingestionKey.create({ data: input, select: summary })) as IngestionKeySummary;
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

/** Marks the key revoked; returns it as it was, or null when no active key has that name. */
export async function revokeActiveIngestionKey(
  tx: Prisma.TransactionClient,
  name: string,
  now = new Date(),
): Promise<IngestionKeySummary | null> {
  const [revoked] = await tx.ingestionKey.updateManyAndReturn({
    where: { name, revokedAt: null },
    data: { revokedAt: now },
    select: summary,
  });
  return revoked ? ({ ...revoked, revokedAt: null } as IngestionKeySummary) : null;
}

const FIND_ACTIVE_KEY = prepared(
  "receipt_find_active_key",
  `select id::text, name, scopes, last_used_at as "lastUsedAt"
      from ingestion_keys where key_hash = $1 and revoked_at is null`,
);

export type ActiveKey = { id: string; name: string; scopes: string[]; lastUsedAt: Date | null };

/** Asked on an API request with a key the instance does not hold (keys/active-keys.ts): one plain statement. */
export async function findActiveKeyByHash(keyHash: string): Promise<ActiveKey | null> {
  const [found] = await poolSql().query<ActiveKey>(FIND_ACTIVE_KEY, [keyHash]);
  return found ?? null;
}

/**
 * Last-used time is informational: written at most once a minute per key, not on every request. The key's
 * `lastUsedAt` follows, so a key held in memory is not written again within the minute.
 */
export async function touchIngestionKey(key: ActiveKey, now = new Date()): Promise<void> {
  if (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() < 60_000) return;
  key.lastUsedAt = now;
  await getPrisma().ingestionKey.update({ where: { id: key.id }, data: { lastUsedAt: now } });
}
