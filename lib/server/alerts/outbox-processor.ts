import { readAlertsByFingerprint } from "../db/alerting-alerts";
import { addGroupMembers } from "../db/alerting-groups";
import { outboxHasPending, takeOutboxEvents, tryLockOutbox } from "../db/alerting-outbox";
import { inTransaction } from "../db/sql";
import { alertOf } from "./alert-rows";
import { planMemberships } from "./group-membership";
import { currentRouting } from "./routing-config";

/**
 * Routes committed outbox events into notification groups. An event only says "this alert changed": the alert row is
 * the truth, so events may be handled in any grouping and a repeated event is harmless. Returns how many were handled.
 */
export async function routeOutboxEvents(now: Date = new Date(), limit = 2000): Promise<number> {
  if (!(await outboxHasPending())) return 0;
  const routing = await currentRouting();
  return inTransaction(async (sql) => {
    if (!(await tryLockOutbox(sql))) return 0;
    const events = await takeOutboxEvents(sql, limit);
    if (events.length === 0) return 0;
    const fingerprints = [...new Set(events.map((e) => e.fingerprint))];
    const rows = await readAlertsByFingerprint(sql, fingerprints);
    await addGroupMembers(sql, planMemberships(routing.compiled, rows.map(alertOf)), now);
    return events.length;
  });
}
