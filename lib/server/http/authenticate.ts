import { readSessionToken, userForToken } from "../auth/sessions";
import { touchIngestionKey } from "../db/ingestion-keys";
import { findActiveKey } from "../keys/active-keys";
import type { Scope } from "@/lib/auth/key-scopes";
import { type Role, roleAtLeast } from "@/lib/auth/roles";
import { bearerToken, hashKey } from "../keys/key-format";
import { forbidden, unauthorized } from "./api-error";
import { rejectForeignOrigin } from "./same-origin";

/**
 * What a route requires:
 * - `ingest`: a key with the `ingest` scope;
 * - `read`: a key with `read` (or `admin`), or any signed-in user;
 * - `respond`: a signed-in `responder` or `admin` (triage, reconcile, silences, resolving, retries); no key;
 * - `manage`: a signed-in `admin` (keys, users, invitations, test notifications); no key, not even an `admin` key;
 * - `config`: the routing config kept as code: a signed-in `admin`, or a key with the `admin` scope (CI);
 * - `self`: any signed-in user, about themselves (password, sessions, notification target); no key.
 * - `audit`: reading the audit log: as `config`, a signed-in `admin` or a key with the `admin` scope.
 */
export type AccessScope = "ingest" | "read" | "respond" | "manage" | "config" | "self" | "audit";

export type Caller =
  | { kind: "key"; keyId: string; keyName: string; scopes: Scope[] }
  | { kind: "user"; userId: string; username: string; role: Role; sessionId: string };

/** The least role a signed-in user needs for each scope; `ingest` is for keys only. */
const USER_ROLE_FOR: Record<Exclude<AccessScope, "ingest">, Role> = {
  read: "viewer",
  self: "viewer",
  respond: "responder",
  config: "admin",
  manage: "admin",
  audit: "admin",
};

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
  if (scope === "ingest") throw forbidden("a dashboard session cannot 'ingest'; use an ingestion key");
  const needed = USER_ROLE_FOR[scope];
  // The role is read from the users row on every request: a change applies to the very next one.
  if (!roleAtLeast(user.role, needed))
    throw forbidden(`this needs the '${needed}' role; you are '${user.role}'`, "insufficient_role");
  return {
    kind: "user",
    userId: user.id,
    username: user.username,
    role: user.role as Role,
    sessionId: user.sessionId,
  };
}

async function authenticateKey(header: string, scope: AccessScope): Promise<Caller> {
  const key = bearerToken(header);
  if (!key) throw unauthorized("Authorization must be 'Bearer <ingestion key>'");
  const found = await findActiveKey(hashKey(key));
  if (!found) throw unauthorized("unknown or revoked ingestion key");
  const scopes = found.scopes as Scope[];
  if (scope === "respond" || scope === "manage" || scope === "self")
    throw forbidden("only a signed-in dashboard user may do this; keys (admin keys included) may not");
  const needed: Scope = scope === "config" || scope === "audit" ? "admin" : scope;
  const granted = scopes.includes(needed) || (needed === "read" && scopes.includes("admin"));
  if (!granted) throw forbidden(`this key lacks the '${needed}' scope`);
  await touchIngestionKey(found);
  return { kind: "key", keyId: found.id, keyName: found.name, scopes };
}

/** Who did something, for audit trails. */
export function actorName(caller: Caller): string {
  return caller.kind === "user" ? caller.username : `key:${caller.keyName}`;
}
