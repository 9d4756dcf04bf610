import {
  type IngestionKeySummary,
  insertIngestionKey,
  listIngestionKeys,
  revokeIngestionKey,
} from "../db/ingestion-keys";
import type { Scope } from "@/lib/auth/key-scopes";
import { displayPrefix, generateKey, hashKey } from "./key-format";

/** Creates a key and returns it once; only its hash is stored. Default scope: ingest only. */
export async function createKey(
  name: string,
  scopes: Scope[] = ["ingest"],
): Promise<{ key: string; summary: IngestionKeySummary }> {
  const key = generateKey();
  const summary = await insertIngestionKey({
    name,
    keyHash: hashKey(key),
    prefix: displayPrefix(key),
    scopes: [...new Set(scopes)],
  });
  return { key, summary };
}

export { listIngestionKeys, revokeIngestionKey };
