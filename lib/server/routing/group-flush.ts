import { InhibitionIndex, inhibitionSourceStates } from "@/lib/routing/inhibit";
import type { CompiledRouting } from "@/lib/routing/compile";
import type { AlertContext } from "@/lib/routing/payload";
import { compileSilence } from "@/lib/routing/silence";
import { readFiringAlerts } from "../db/routing-alerts";
import { insertDeliveries } from "../db/routing-deliveries";
import {
  anyGroupDue,
  claimDueGroups,
  deleteGroups,
  type GroupState,
  readAlertContexts,
  readMemberAlerts,
  saveGroupStates,
  unscheduleGroups,
} from "../db/routing-groups";
import { activeSilences } from "../db/routing-silences";
import { clearSetAside, type SetAside, SET_ASIDE_JOBS } from "../db/set-aside";
import { inTransaction, poolSql, type Sql } from "../db/sql";
import { announceDeliveries } from "../db/wake-notify";
import { failureReason, writeIsolated } from "../db/isolated-writes";
import { planIsolated, setAside } from "../worker/isolate";
import { alertOf, type MemberAlert } from "@/lib/routing/alert-rows";
import type { CompiledSilence } from "@/lib/routing/silence";
import type { Alert } from "@/lib/routing/types";
import { assigneeCopies } from "./assignee-copies";
import { deliveryRowsFor } from "./delivery-rows";
import { type FlushPlan, type GroupSnapshot, planGroupFlush } from "@/lib/routing/group-flush-plan";
import { type CurrentRouting, currentRouting } from "./routing-config";
import { timeStage } from "./alert-stages";

/** Inhibition needs every firing source alert; far more than this many at once is an outage the cap does not hide. */
export const FIRING_ALERTS_CAP = 20_000;
const GROUPS_PER_TRANSACTION = 100;
const JOB = SET_ASIDE_JOBS.groupFlush;

/**
 * Flushes due notification groups in batches: the groups are claimed FOR UPDATE SKIP LOCKED, and their deliveries
 * and sent-state are written in the same commit, so two instances never send one notification twice and a crash
 * either sends it later or never recorded it as sent. A constant number of statements per batch, so a burst of
 * groups (effect_unknown groups by chain) flushes in one go. A group that cannot be planned or written is set aside
 * (until a new member arrives or an operator retries it) and the others flush. Returns the number of notifications
 * made.
 */
export async function flushDueGroups(
  now: Date = new Date(),
  maxBatches = 20,
  routingInForce: () => Promise<CurrentRouting> = currentRouting,
): Promise<number> {
  if (!(await anyGroupDue(now))) return 0;
  return timeStage(
    "flush",
    () => flushGroups(now, maxBatches, routingInForce),
    (notifications) => notifications > 0,
  );
}

async function flushGroups(
  now: Date,
  maxBatches: number,
  routingInForce: () => Promise<CurrentRouting>,
): Promise<number> {
  const routing = await routingInForce();
  // Inhibition sources: the firing alerts in a state some rule's source matchers accept, read once per tick (not
  // per group), and only when a rule exists.
  const sourceStates = inhibitionSourceStates(routing.compiled.inhibitRules);
  const firing =
    sourceStates.length === 0 ? [] : await readFiringAlerts({ states: sourceStates }, FIRING_ALERTS_CAP);
  const options = await flushOptions(poolSql(), routing.compiled, now, firing.map(alertOf));
  let notifications = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const { claimed, sent } = await inTransaction(async (sql) => {
      const groups = await claimDueGroups(sql, now, GROUPS_PER_TRANSACTION);
      const alerts = await readMemberAlerts(sql, [...new Set(groups.flatMap((g) => g.members))]);
      const { sent } = await flushClaimedGroups(sql, groups, alerts, routing.compiled, now, options);
      return { claimed: groups.length, sent };
    });
    notifications += sent;
    if (claimed < GROUPS_PER_TRANSACTION) break;
  }
  return notifications;
}

export type FlushOptions = { extraSilences: CompiledSilence[]; inhibitionIndex: InhibitionIndex };

/**
 * What every flush of a run applies: the active silences and the inhibition index of `firing` (the sources). A
 * silence that no longer compiles (a matcher rule tightened since it was saved) mutes nothing rather than stopping
 * every flush; it is set aside so an operator sees it.
 */
export async function flushOptions(
  sql: Sql,
  routing: CompiledRouting,
  now: Date,
  firing: readonly Alert[],
): Promise<FlushOptions> {
  const silences = planIsolated(await activeSilences(now, sql), (some) => some.map(compileSilence));
  await setAside(
    sql,
    JOB,
    silences.failures.map(({ item, reason }) => ({ key: `silence:${item.id}`, reason })),
  );
  return {
    extraSilences: silences.results,
    inhibitionIndex: new InhibitionIndex(routing.inhibitRules, firing),
  };
}

/**
 * Decides and writes the flush of groups this transaction holds (`alerts`: their members): deliveries, new state,
 * groups dropped; a group that cannot be planned or written is set aside. Returns the notifications made and the
 * earliest next action of the groups written.
 */
export async function flushClaimedGroups(
  sql: Sql,
  groups: readonly GroupSnapshot[],
  alerts: readonly MemberAlert[],
  routing: CompiledRouting,
  now: Date,
  options: FlushOptions,
  /** false: one write, whose failure fails the caller (routing at commit, which falls back to the outbox whole). */
  isolated = true,
): Promise<{ sent: number; nextActionAt: Date | null }> {
  const byFingerprint = new Map(alerts.map((a) => [a.fingerprint, a]));
  const decided: Decided[] = [];
  const failed: SetAside[] = [];
  for (const group of groups) {
    try {
      const members = group.members.flatMap((fp) => byFingerprint.get(fp) ?? []);
      const plan = planGroupFlush(group, members, routing, now.getTime(), options);
      decided.push({ group, plan });
    } catch (error) {
      failed.push({ key: group.groupKey, reason: failureReason(error) });
    }
  }
  const write = (some: readonly Decided[]) => writeFlushes(sql, some, routing, now);
  const { written, failures } = isolated
    ? await writeIsolated(sql, decided, write)
    : await write(decided).then(() => ({ written: decided, failures: [] }));
  for (const { item, reason } of failures) failed.push({ key: item.group.groupKey, reason });
  await setGroupsAside(sql, failed);
  await clearSetAside(
    sql,
    JOB,
    written.map((item) => item.group.groupKey),
  );
  const next = written.flatMap(({ plan }) =>
    plan.drop || !plan.nextActionAt ? [] : [plan.nextActionAt.getTime()],
  );
  return {
    sent: written.filter((item) => item.plan.notification).length,
    nextActionAt: next.length === 0 ? null : new Date(Math.min(...next)),
  };
}

type Decided = { group: GroupSnapshot; plan: FlushPlan };

/**
 * What the flush decided for these groups: their deliveries (the delivery job on every instance is woken when this
 * commits), their new state, the groups dropped.
 */
async function writeFlushes(
  sql: Sql,
  decided: readonly Decided[],
  routing: CompiledRouting,
  now: Date,
): Promise<void> {
  const notifications = decided.flatMap(({ plan }) => plan.notification ?? []);
  const states: GroupState[] = [];
  const dropped: string[] = [];
  for (const { group, plan } of decided) {
    if (plan.drop) dropped.push(group.groupKey);
    else {
      const { members: kept, lastSentAt, lastSentFingerprints, nextActionAt } = plan;
      const keptSet = new Set(kept);
      states.push({
        groupKey: group.groupKey,
        dropped: group.members.filter((fp) => !keptSet.has(fp)),
        lastSentAt,
        lastSentFingerprints,
        nextActionAt,
      });
    }
  }
  // A channel without targets sends nothing, so its alerts' contexts (a large group's tens of thousands) are not
  // read; its group state still advances below, as if sent, like Alertmanager's receiver without configs.
  const sending = notifications.flatMap((notification) => {
    const channel = routing.channels.get(notification.receiver);
    return channel && channel.targets.length > 0 ? [{ notification, channel }] : [];
  });
  // The assignees' own copies: whatever the team channel's targets, the person who owns the item hears of it.
  const copies = await assigneeCopies(sql, notifications);
  const contexts = await readAlertContexts(sql, [
    ...new Set(
      [...sending, ...copies].flatMap(({ notification }) =>
        notification.alerts.map((a) => a.alert.fingerprint),
      ),
    ),
  ]);
  const deliveries = [...sending, ...copies].flatMap(({ notification, channel }) => {
    for (const item of notification.alerts)
      item.context = (contexts.get(item.alert.fingerprint) ?? {}) as AlertContext;
    return deliveryRowsFor(notification, channel, "notification");
  });
  const ids = await insertDeliveries(sql, deliveries, now);
  await announceDeliveries(
    sql,
    deliveries.map((row, i) => ({
      id: ids[i] as bigint,
      channel: row.channel,
      targetIndex: row.targetIndex,
      targetType: row.targetType,
    })),
  );
  await saveGroupStates(sql, states, now);
  await deleteGroups(sql, dropped);
}

/** Set aside: recorded, and taken off the schedule until a new member arrives or an operator retries it. */
async function setGroupsAside(sql: Sql, groups: SetAside[]) {
  if (groups.length === 0) return;
  await setAside(sql, JOB, groups);
  await unscheduleGroups(
    sql,
    groups.map((item) => item.key),
  );
}
