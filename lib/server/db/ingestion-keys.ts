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
