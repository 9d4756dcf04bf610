import { getPrisma } from "../db/client";
import { prismaSql } from "../db/sql";
import { readAlertsByFingerprint } from "../db/alerting-alerts";
import { addGroupMembers } from "../db/alerting-groups";
import {
  markOutboxProcessed,
  outboxHasPending,
  readPendingOutbox,
  tryLockOutbox,
} from "../db/alerting-outbox";
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
  return getPrisma().$transaction(
    async (tx) => {
      if (!(await tryLockOutbox(tx))) return 0;
      const events = await readPendingOutbox(tx, limit);
      if (events.length === 0) return 0;
      const fingerprints = [...new Set(events.map((e) => e.fingerprint))];
      const rows = await readAlertsByFingerprint(prismaSql(tx), fingerprints);
      await addGroupMembers(tx, planMemberships(routing.compiled, rows.map(alertOf)), now);
      await markOutboxProcessed(
        tx,
        events.map((e) => e.id),
        now,
      );
      return events.length;
    },
    { timeout: 30_000 },
  );
}
