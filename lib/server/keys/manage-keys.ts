import { z } from "zod";
import type { CreatedKey, KeySummary } from "@/lib/dashboard/api-types";
import { type IngestionKeySummary, KeyNameTakenError } from "../db/ingestion-keys";
import type { AuditActor } from "../audit/audit-actor";
import { ApiError, notFound } from "../http/api-error";
import { createKey, listIngestionKeys, revokeIngestionKey } from "./key-service";
import { SCOPES, ZKeyName, ZScope } from "@/lib/auth/key-scopes";

// Key management from the dashboard (Settings → Ingestion keys): the same service as the `keys` CLI.
export const ZCreateKeyBody = z.strictObject({
  name: ZKeyName,
  scopes: z.array(ZScope).min(1, "at least one scope").max(SCOPES.length).default(["ingest"]),
});

export function toKeySummary(key: IngestionKeySummary): KeySummary {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

/** Active keys first (newest first), then revoked ones: the list an operator scans for "which key is live". */
export async function listKeySummaries(): Promise<KeySummary[]> {
  const keys = (await listIngestionKeys()).map(toKeySummary);
  const active = keys.filter((key) => !key.revokedAt).reverse();
  const revoked = keys.filter((key) => key.revokedAt).reverse();
  return [...active, ...revoked];
}

/** Creates a key; the key itself is in this answer only (the table keeps its hash). */
export async function createKeyFromDashboard(
  body: z.infer<typeof ZCreateKeyBody>,
  actor: AuditActor,
): Promise<CreatedKey> {
  try {
    const created = await createKey(body.name, body.scopes, actor);
    return { key: created.key, summary: toKeySummary(created.summary) };
  } catch (error) {
    if (error instanceof KeyNameTakenError) {
      throw new ApiError(409, "key_name_taken", `a key named '${body.name}' already exists`, [
        { path: "$.name", code: "key_name_taken", message: "names are unique, revoked keys included" },
      ]);
    }
    throw error;
  }
}

export async function revokeKeyByName(name: string, actor: AuditActor): Promise<void> {
  if (!ZKeyName.safeParse(name).success || !(await revokeIngestionKey(name, actor)))
    throw notFound("active key");
}
