import { readAlertsByFingerprint } from "../db/routing-alerts";
import { addGroupMembers } from "../db/routing-groups";
import { outboxHasPending, takeOutboxEvents, tryLockOutbox } from "../db/routing-outbox";
import { clearSetAside, SET_ASIDE_JOBS } from "../db/set-aside";
import { inTransaction } from "../db/sql";
import { writeIsolated } from "../db/isolated-writes";
import { planIsolated, setAside } from "../worker/isolate";
import { alertOf } from "@/lib/routing/alert-rows";
import { mergeMemberships, planMemberships } from "./group-membership";
import { type CurrentRouting, currentRouting } from "./routing-config";
import { observeWaits, timeStage } from "./alert-stages";

const JOB = SET_ASIDE_JOBS.alertRouting;

/** Events a routing transaction takes at most; fewer taken means the outbox was empty when it took them. */
export const ROUTE_BATCH = 2000;

/**
 * Routes committed outbox events into notification groups. An event only says "this alert changed": the alert row is
 * the truth, so events may be handled in any grouping and a repeated event is harmless. An alert that cannot be routed
 * or added to its groups is set aside (its events are consumed; a later change of the alert tries again) and the
 * others are routed. Returns how many events were handled. `routing`: the config in force (the job reads it once a
 * run and shares it with the flush).
 */
export async function routeOutboxEvents(
  now: Date = new Date(),
  limit = ROUTE_BATCH,
  routingInForce: () => Promise<CurrentRouting> = currentRouting,
): Promise<number> {
  if (!(await outboxHasPending())) return 0;
  const routing = await routingInForce();
  return timeStage(
    "route",
    () => routeTaken(routing, now, limit),
    (handled) => handled > 0,
  );
}

async function routeTaken(routing: CurrentRouting, now: Date, limit: number): Promise<number> {
  return inTransaction(async (sql) => {
    if (!(await tryLockOutbox(sql))) return 0;
    const events = await takeOutboxEvents(sql, limit);
    if (events.length === 0) return 0;
    observeWaits(
      "outbox_wait",
      events.map((event) => event.createdAt),
    );
    const fingerprints = [...new Set(events.map((e) => e.fingerprint))];
    const rows = await readAlertsByFingerprint(sql, fingerprints);
    const planned = planIsolated(rows, (some) =>
      some.map((row) => ({
        fingerprint: row.fingerprint,
        groups: planMemberships(routing.compiled, [alertOf(row)]),
      })),
    );
    const { written, failures } = await writeIsolated(sql, planned.results, async (items) => {
      await addGroupMembers(sql, mergeMemberships(items.flatMap((item) => item.groups)), now);
    });
    const failed = [...planned.failures, ...failures].map(({ item, reason }) => ({
      key: item.fingerprint,
      reason,
    }));
    await setAside(sql, JOB, failed);
    await clearSetAside(
      sql,
      JOB,
      written.map((item) => item.fingerprint),
    );
    return events.length;
  });
}
