import { findActiveKeyByHash, touchIngestionKey } from "../db/ingestion-keys";
import { bearerToken, hashKey, type Scope } from "../keys";
import { ApiError, forbidden, unauthorized } from "./api-error";

export type Caller = { kind: "key"; keyId: string; keyName: string; scopes: Scope[] };

/**
 * Resolves the caller of an API request and checks it holds `scope`. The key itself is never logged or echoed:
 * errors say only what was wrong with it.
 */
export async function authenticate(request: Request, scope: Scope): Promise<Caller> {
  const header = request.headers.get("authorization");
  if (!header) throw unauthorized("missing Authorization: Bearer <ingestion key>");
  const key = bearerToken(header);
  if (!key) throw unauthorized("Authorization must be 'Bearer <ingestion key>'");
  const found = await findActiveKeyByHash(hashKey(key));
  if (!found) throw unauthorized("unknown or revoked ingestion key");
  const scopes = found.scopes as Scope[];
  if (!scopes.includes(scope)) throw forbidden(`this key lacks the '${scope}' scope`);
  await touchIngestionKey(found.id, found.lastUsedAt);
  return { kind: "key", keyId: found.id, keyName: found.name, scopes };
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
