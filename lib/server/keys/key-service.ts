import { forgetActiveKeys } from "./active-keys";
import { appendAuditEvent } from "../db/audit-events";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { getPrisma } from "../db/client";
import {
  type IngestionKeySummary,
  insertIngestionKey,
  listIngestionKeys,
  revokeActiveIngestionKey,
} from "../db/ingestion-keys";
import { type AuditActor, SYSTEM_ACTOR } from "../audit/audit-actor";
import type { Scope } from "@/lib/auth/key-scopes";
import { displayPrefix, generateKey, hashKey } from "./key-format";

/** What the audit log keeps of a key: never its hash, only what the keys page shows. */
const keyRecord = (key: IngestionKeySummary) => ({
  name: key.name,
  prefix: key.prefix,
  scopes: key.scopes,
  revokedAt: key.revokedAt?.toISOString() ?? null,
});

/**
 * Creates a key and returns it once; only its hash is stored. Default scope: ingest only. The key and its audit
 * event commit together; the command-line tools act as `system`.
 */
export async function createKey(
  name: string,
  scopes: Scope[] = ["ingest"],
  actor: AuditActor = SYSTEM_ACTOR,
  /** Another database than the process's (the tests' key for the database of one file). */
  prisma: Pick<PrismaClient, "$transaction"> = getPrisma(),
): Promise<{ key: string; summary: IngestionKeySummary }> {
  const key = generateKey();
  const summary = await prisma.$transaction(async (tx) => {
    const created = await insertIngestionKey(
      { name, keyHash: hashKey(key), prefix: displayPrefix(key), scopes: [...new Set(scopes)] },
      tx,
    );
    await appendAuditEvent(tx, {
      ...actor,
      action: "key.create",
      targetType: "key",
      targetId: created.id,
      after: keyRecord(created),
    });
    return created;
  });
  return { key, summary };
}

/** Revokes the active key with this name; false when there is none (and nothing is audited). */
export async function revokeIngestionKey(name: string, actor: AuditActor = SYSTEM_ACTOR): Promise<boolean> {
  const revoked = await getPrisma().$transaction(async (tx) => {
    const now = new Date();
    const before = await revokeActiveIngestionKey(tx, name, now);
    if (!before) return false;
    await appendAuditEvent(tx, {
      ...actor,
      action: "key.revoke",
      targetType: "key",
      targetId: before.id,
      before: keyRecord(before),
      after: keyRecord({ ...before, revokedAt: now }),
    });
    return before.id;
  });
  if (!revoked) return false;
  // Every instance forgets it when the trigger's notification arrives; this one before it answers.
  forgetActiveKeys(revoked);
  return true;
}

export { listIngestionKeys };
