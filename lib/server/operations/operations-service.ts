import {
  bindingConflict,
  DECISION_REPLY,
  decide,
  type GuardDecision,
  retryAfterSeconds,
} from "@/lib/operations/decision";
import { type GuardRequest, ZOperationKey } from "@/lib/operations/schemas";
import {
  type AttemptFacts,
  type LeaseFacts,
  type OperationStatus,
  operationStatus,
} from "@/lib/operations/status";
import {
  type CommittedReceipts,
  grantLease,
  insertOperationDecision,
  lockOperation,
  readChainReceipts,
  readOperation,
  readOperationAttempts,
  readOperationDecisions,
} from "../db/operations-store";
import {
  type GuardFacts,
  grantLeaseIfUnchanged,
  readGuardFacts,
  storeDecisionWithoutLease,
} from "../db/operations-guard-store";
import { inTransaction, poolSql, type Sql } from "../db/sql";
import { ApiError } from "../http/api-error";
import { actorName, type Caller } from "../http/authenticate";
import { rejectSecrets } from "../http/reject-secrets";
import type { AttemptView, LeaseView, OperationDetail, OperationView } from "@/lib/operations/views";
import { metrics } from "../metrics/registry";
import { decisionView, operationView } from "./operation-view";

/** `GET /api/v1/operations/{key}`: the derived status, every attempt, the lease and every guard decision. */
export async function readOperationView(key: string, now = new Date()): Promise<OperationDetail> {
  const sql = poolSql();
  const [operation, attempts, decisions] = await Promise.all([
    readOperation(sql, key),
    readOperationAttempts(sql, key),
    readOperationDecisions(sql, key),
  ]);
  return {
    ...operationView(key, operation, attempts, operation?.lease ?? null, now),
    decisions: decisions.map(decisionView),
  };
}

export type GuardAnswer = {
  decision: GuardDecision;
  operationKey: string;
  status: OperationView["status"];
  attempts: AttemptView[];
  lease: LeaseView | null;
  links: OperationView["links"];
  /** `already_committed`: the chain whose effect is committed, and its receipts, to report instead of repeating. */
  committed?: { chainId: string | null; receipts: CommittedReceipts };
};

export type GuardReply = { body: GuardAnswer; status: number; code?: string; retryAfter?: number };

/**
 * `POST /api/v1/operations/{key}/attempts`. Racing callers on one key get exactly one `proceed`: the fast path reads
 * the facts in one statement and grants a lease only if the lease is still the one it read (compare and set, in the
 * statement that stores the decision); when it is not, the caller reads and decides once more, and after a second loss
 * under the operation's row lock.
 * Every decision is stored. A tool or server other than the key's is refused (409) and not stored.
 */
export async function guardAttempt(
  key: string,
  request: GuardRequest,
  caller: Caller,
  prefetched: GuardFacts | null = null,
  now = new Date(),
): Promise<GuardReply> {
  rejectSecrets([["$.holder", request.holder]]);
  const asked = { tool: request.tool, server: request.server ?? null };
  const actor = actorName(caller);
  // A caller that lost the lease's compare-and-set reads the facts again and decides once more without a lock (the
  // winner's lease now answers it `wait`: two statements, where the locked path takes seven); only a second loss
  // takes the lock, so a caller always ends.
  const reply =
    (await guardWithoutLock(key, request, asked, actor, prefetched, now)) ??
    (await guardWithoutLock(key, request, asked, actor, null, now)) ??
    (await guardUnderLock(key, request, asked, actor, now));
  metrics().guardDecisions.inc({ decision: reply.body.decision });
  return reply;
}

export type Asked = { tool: string; server: string | null };

/**
 * The guard's first statement, started by the route while the caller is authenticated (apiRoute's `prefetch`): null
 * for a key that is not an id, which the route refuses after authentication, as before.
 */
export function prefetchGuardFacts(key: string): Promise<GuardFacts | null> {
  return ZOperationKey.safeParse(key).success ? readGuardFacts(poolSql(), key) : Promise.resolve(null);
}

/** Two statements, no transaction: null when another caller changed the lease between them. */
async function guardWithoutLock(
  key: string,
  request: GuardRequest,
  asked: Asked,
  actor: string,
  prefetched: GuardFacts | null,
  now: Date,
): Promise<GuardReply | null> {
  const sql = poolSql();
  const facts = prefetched ?? (await readGuardFacts(sql, key));
  refuseBindingConflict(asked, facts.operation, facts.attempts);
  const status = operationStatus(facts.attempts, facts.operation?.lease ?? null, now);
  const decision = decide(status);
  const entry = { decision, status, holder: request.holder, tool: asked.tool, server: asked.server, actor };
  let lease = facts.operation?.lease ?? null;
  if (decision === "proceed") {
    lease = await grantLeaseIfUnchanged(sql, key, entry, request.leaseMs, facts.version);
    if (!lease) return null;
  } else await storeDecisionWithoutLease(sql, key, entry);
  return replyOf(sql, key, decision, status, facts.operation, facts.attempts, lease, now);
}

/**
 * One transaction holding the operation's row lock: the status is read and the lease granted under it. The last resort
 * of a caller that lost the compare-and-set twice (exported for its test: a race rarely reaches it).
 */
export function guardUnderLock(
  key: string,
  request: GuardRequest,
  asked: Asked,
  actor: string,
  now: Date,
): Promise<GuardReply> {
  return inTransaction(async (sql) => {
    const operation = await lockOperation(sql, key, asked);
    const attempts = await readOperationAttempts(sql, key);
    refuseBindingConflict(asked, operation.created ? null : operation, attempts);
    const status = operationStatus(attempts, operation.lease, now);
    const decision = decide(status);
    const lease =
      decision === "proceed" ? await grantLease(sql, key, request.holder, request.leaseMs) : operation.lease;
    await insertOperationDecision(sql, key, {
      decision,
      status,
      holder: request.holder,
      tool: asked.tool,
      server: asked.server,
      leaseUntil: decision === "proceed" ? (lease?.until ?? null) : null,
      actor,
    });
    return replyOf(sql, key, decision, status, operation, attempts, lease, now);
  });
}

function refuseBindingConflict(asked: Asked, bound: Asked | null, attempts: AttemptFacts[]) {
  const conflict = bindingConflict(asked, bound, attempts);
  if (conflict) {
    throw new ApiError(409, "operation_key_conflict", "this operation key belongs to another write", [
      { path: conflict.path, code: "operation_key_conflict", message: conflict.message },
    ]);
  }
}

/** The answer: the operation as the decision saw it, and for `already_committed` the receipts to report. */
async function replyOf(
  sql: Sql,
  key: string,
  decision: GuardDecision,
  status: OperationStatus,
  binding: Asked | null,
  attempts: AttemptFacts[],
  lease: LeaseFacts | null,
  now: Date,
): Promise<GuardReply> {
  const view = operationView(key, binding, attempts, lease, now);
  const body: GuardAnswer = {
    decision,
    operationKey: key,
    status,
    attempts: view.attempts,
    lease: view.lease,
    links: view.links,
  };
  if (decision === "already_committed") {
    const committing = view.attempts.filter((attempt) => attempt.effect === "committed").at(-1);
    if (committing)
      body.committed = {
        chainId: committing.chainId,
        receipts: await readChainReceipts(sql, committing.chainId),
      };
    // No chain: the lease of an agent that died after sending, shown committed at the destination.
    else if (lease?.settled?.effect === "committed")
      body.committed = {
        chainId: null,
        receipts: { effect: lease.settled.receipt, outcome: null, operator: lease.settled.by },
      };
  }
  const reply = DECISION_REPLY[decision];
  return {
    body,
    status: reply.status,
    ...(reply.code ? { code: reply.code } : {}),
    // A live lease ends at a known time; a running chain without one is asked about again after the default.
    ...(decision === "wait"
      ? { retryAfter: retryAfterSeconds(view.lease?.state === "live" ? (lease?.until ?? null) : null, now) }
      : {}),
  };
}

const DECISION_MESSAGE: Partial<Record<GuardDecision, string>> = {
  wait: "another attempt at this operation is in flight: wait, then ask again",
  reconcile_first:
    "an earlier attempt at this operation may have written: reconcile it (check the destination) before retrying",
};

/** The guard's reply body: the answer, plus `error` with its code for the two refusals (409). */
export function guardReplyBody(
  reply: GuardReply,
): GuardAnswer & { error?: { code: string; message: string } } {
  if (!reply.code) return reply.body;
  return { ...reply.body, error: { code: reply.code, message: DECISION_MESSAGE[reply.body.decision] ?? "" } };
}

/** An operation key in the URL is a contract Id: anything else is 400 `invalid_operation_key` at `$.path.key`. */
export function checkOperationKey(key: string): string {
  if (ZOperationKey.safeParse(key).success) return key;
  throw new ApiError(400, "invalid_operation_key", "the operation key is not an id", [
    {
      path: "$.path.key",
      code: "invalid_operation_key",
      message: "expected an id: 1-128 characters of A-Z a-z 0-9 . _ : -",
    },
  ]);
}
