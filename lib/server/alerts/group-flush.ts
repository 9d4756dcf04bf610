import { compileSilence } from "@/lib/routing/silence";
import { storedAlertColumns } from "../db/alerting-alerts";
import { insertDeliveries } from "../db/alerting-deliveries";
import { claimDueGroup, deleteGroup, readMemberAlerts, saveGroupState } from "../db/alerting-groups";
import { activeSilences } from "../db/alerting-silences";
import { getPrisma } from "../db/client";
import { alertOf } from "./alert-rows";
import { deliveryRowsFor } from "./delivery-rows";
import { planGroupFlush } from "./group-flush-plan";
import { currentRouting } from "./routing-config";

/** Inhibition needs every firing alert; far more than this many at once is an outage the cap does not hide. */
const FIRING_ALERTS_CAP = 20_000;

/**
 * Flushes due notification groups, one transaction per group: the group row is claimed FOR UPDATE SKIP LOCKED, its
 * deliveries are written and its sent-state updated in the same commit, so two instances never send one
 * notification twice and a crash either sends it later or never recorded it as sent. Returns notifications made.
 */
export async function flushDueGroups(now: Date = new Date(), budget = 200): Promise<number> {
  const routing = await currentRouting();
  const silences = (await activeSilences(now)).map(compileSilence);
  const firing = await getPrisma().alert.findMany({
    where: { status: "firing" },
    select: storedAlertColumns,
    take: FIRING_ALERTS_CAP,
  });
  const options = { extraSilences: silences, firingAlerts: firing.map(alertOf) };
  let notifications = 0;
  for (let i = 0; i < budget; i++) {
    const outcome = await getPrisma().$transaction(
      async (tx) => {
        const group = await claimDueGroup(tx, now);
        if (!group) return "none" as const;
        const alerts = await readMemberAlerts(tx, group.members);
        const plan = planGroupFlush(group, alerts, routing.compiled, now.getTime(), options);
        const channel = plan.notification && routing.compiled.channels.get(plan.notification.receiver);
        if (plan.notification && channel) {
          await insertDeliveries(tx, deliveryRowsFor(plan.notification, channel, "notification"), now);
        }
        if (plan.drop) await deleteGroup(tx, group.groupKey);
        else await saveGroupState(tx, group.groupKey, plan, now);
        return plan.notification ? ("sent" as const) : ("waiting" as const);
      },
      { timeout: 30_000 },
    );
    if (outcome === "none") break;
    if (outcome === "sent") notifications++;
  }
  return notifications;
}
