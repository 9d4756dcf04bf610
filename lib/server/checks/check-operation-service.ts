// Destination checks for an operation whose lease expired with no record (no chain to reconcile): the checks that
// match its tool and server read the destination by its key, and agreeing decisive results settle the lease
// (lib/server/operations/lease-settlement.ts) as `check:<name>`.
import { checkMatches, type CheckDecision } from "@/lib/checks/decide";
import type { TCheck } from "@/lib/checks/config";
import { leaseState } from "@/lib/operations/status";
import type { OperationDetail } from "@/lib/operations/views";
import { markLeaseChecked, readOperation, readOperationAttempts } from "../db/operations-store";
import { poolSql } from "../db/sql";
import { ApiError, notFound } from "../http/api-error";
import { metrics } from "../metrics/registry";
import { readOperationView } from "../operations/operations-service";
import { settleOperationLease } from "../operations/lease-settlement";
import { currentChecks } from "./checks-config-service";
import { type CheckEnv, runCheck } from "./run-check";
import { settlingDecision } from "./settling-decision";

export type OperationCheckAnswer = OperationDetail & {
  runs: {
    check: string;
    effect: CheckDecision["effect"];
    outcome: CheckDecision["outcome"];
    receipt: string;
  }[];
};

export async function checkOperation(
  key: string,
  trigger: "on_demand" | "in_doubt",
  env: CheckEnv = process.env,
  now: () => Date = () => new Date(),
): Promise<OperationCheckAnswer> {
  const sql = poolSql();
  const operation = await readOperation(sql, key);
  if (!operation) throw notFound("operation");
  const lease = operation.lease;
  const state = lease ? leaseState(lease, await readOperationAttempts(sql, key), now()) : null;
  if (!lease || state !== "expired" || lease.settled) {
    throw new ApiError(
      409,
      "lease_not_in_doubt",
      "only a lease that expired with no record is checked here",
      [
        {
          path: "$",
          code: "lease_not_in_doubt",
          message: "reconcile the operation's chains on their pages instead",
        },
      ],
    );
  }
  const facts = { server: operation.server, tool: operation.tool, labels: {} };
  const checks = (await currentChecks()).checks.filter((check: TCheck) => checkMatches(check, facts));
  if (checks.length === 0 && trigger === "on_demand") {
    throw new ApiError(422, "no_matching_check", "no destination check matches this operation", [
      { path: "$", code: "no_matching_check", message: `no check matches tool ${operation.tool}` },
    ]);
  }
  const values = { operationKey: key, receipt: null, labels: {} };
  const decisions = await Promise.all(
    checks.map(async (check) => ({ check, decision: await runCheck(check, values, env) })),
  );
  const settledBy = settlingDecision(decisions);
  for (const { check, decision } of decisions)
    metrics().checkRuns.inc({
      trigger,
      effect: decision.effect,
      reconciled: String(check === settledBy?.check),
    });
  const runs = decisions.map(({ check, decision }) => ({ check: check.name, ...decision }));
  if (settledBy) {
    const by = `check:${settledBy.check.name}`;
    try {
      const settled = await settleOperationLease(
        key,
        {
          effect: settledBy.decision.effect as "committed" | "absent",
          receipt: `${by} ${settledBy.decision.receipt}`,
          by,
        },
        { actorUserId: null, actor: by },
        now(),
      );
      return { ...settled, runs };
    } catch (error) {
      // A record with the key arrived, or someone settled it meanwhile: the runs stand, the lease is not ours to set.
      if (!(error instanceof ApiError && error.code === "lease_not_in_doubt")) throw error;
    }
  } else {
    await markLeaseChecked(sql, key, now());
  }
  return { ...(await readOperationView(key, now())), runs };
}
