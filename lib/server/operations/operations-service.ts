import {
  bindingConflict,
  DECISION_REPLY,
  decide,
  type GuardDecision,
  retryAfterSeconds,
} from "@/lib/operations/decision";
import { type GuardRequest, ZOperationKey } from "@/lib/operations/schemas";
import { operationStatus } from "@/lib/operations/status";
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
import { inTransaction, poolSql } from "../db/sql";
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
 * `POST /api/v1/operations/{key}/attempts`. One transaction holding the operation's row lock: the status is read
 * and the lease granted under it, so racing callers on one key get exactly one `proceed`. Every decision is stored
 * in the same transaction. A tool or server other than the key's is refused (409) and not stored.
 */
export async function guardAttempt(
  key: string,
  request: GuardRequest,
  caller: Caller,
  now = new Date(),
): Promise<GuardReply> {
  rejectSecrets([["$.holder", request.holder]]);
  const asked = { tool: request.tool, server: request.server ?? null };
  const reply = await inTransaction(async (sql) => {
    const operation = await lockOperation(sql, key, asked);
    const attempts = await readOperationAttempts(sql, key);
    const conflict = bindingConflict(asked, operation.created ? null : operation, attempts);
    if (conflict) {
      throw new ApiError(409, "operation_key_conflict", "this operation key belongs to another write", [
        { path: conflict.path, code: "operation_key_conflict", message: conflict.message },
      ]);
    }
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
      actor: actorName(caller),
    });
    const view = operationView(key, operation, attempts, lease, now);
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
  });
  metrics().guardDecisions.inc({ decision: reply.body.decision });
  return reply;
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
