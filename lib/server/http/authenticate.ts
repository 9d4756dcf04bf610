import { readSessionToken, userForToken } from "../auth/sessions";
import { findActiveKeyByHash, touchIngestionKey } from "../db/ingestion-keys";
import type { Scope } from "@/lib/auth/key-scopes";
import { bearerToken, hashKey } from "../keys/key-format";
import { forbidden, unauthorized } from "./api-error";
import { rejectForeignOrigin } from "./same-origin";

/**
 * What a route requires:
 * - `ingest`, `read`: a key with that scope (an `admin` key may read too); a dashboard session may read;
 * - `user`: a signed-in dashboard user only (keys, triage, silences, retries): no key, not even an `admin` key;
 * - `config`: the routing config kept as code: a signed-in user, or a key with the `admin` scope (CI).
 */
export type AccessScope = Exclude<Scope, "admin"> | "user" | "config";

export type Caller =
  | { kind: "key"; keyId: string; keyName: string; scopes: Scope[] }
  | { kind: "user"; userId: string; username: string };

/** What a signed-in user may do: read everything and administer; ingestion is for keys. */
const USER_SCOPES: AccessScope[] = ["read", "user", "config"];

/** Reads: a cross-site page may trigger them, but cannot read the answer. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Resolves the caller of an API request — an ingestion key (`Authorization: Bearer`) or a dashboard session
 * cookie — and checks it holds `scope`. The key itself is never logged or echoed.
 */
export async function authenticate(request: Request, scope: AccessScope): Promise<Caller> {
  const header = request.headers.get("authorization");
  if (header) return authenticateKey(header, scope);
  if (!SAFE_METHODS.has(request.method)) rejectForeignOrigin(request);
  const user = await userForToken(readSessionToken(request.headers.get("cookie")));
  if (!user) throw unauthorized("missing Authorization: Bearer <ingestion key> or a dashboard session");
  if (!USER_SCOPES.includes(scope))
    throw forbidden(`a dashboard session cannot '${scope}'; use an ingestion key`);
  return { kind: "user", userId: user.id, username: user.username };
}

async function authenticateKey(header: string, scope: AccessScope): Promise<Caller> {
  const key = bearerToken(header);
  if (!key) throw unauthorized("Authorization must be 'Bearer <ingestion key>'");
  const found = await findActiveKeyByHash(hashKey(key));
  if (!found) throw unauthorized("unknown or revoked ingestion key");
  const scopes = found.scopes as Scope[];
  if (scope === "user")
    throw forbidden("only a signed-in dashboard user may do this; keys (admin keys included) may not");
  const needed: Scope = scope === "config" ? "admin" : scope;
  const granted = scopes.includes(needed) || (needed === "read" && scopes.includes("admin"));
  if (!granted) throw forbidden(`this key lacks the '${needed}' scope`);
  await touchIngestionKey(found.id, found.lastUsedAt);
  return { kind: "key", keyId: found.id, keyName: found.name, scopes };
}

/** Who did something, for audit trails. */
export function actorName(caller: Caller): string {
  return caller.kind === "user" ? caller.username : `key:${caller.keyName}`;
}
