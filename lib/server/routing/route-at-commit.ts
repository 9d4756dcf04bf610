import { alertOf } from "@/lib/routing/alert-rows";
import { pagesAtOnce } from "@/lib/routing/at-once";
import type { CompiledRouting } from "@/lib/routing/compile";
import type { Alert } from "@/lib/routing/types";
import { inhibitionSourceLabels, inhibitionSourceStates } from "@/lib/routing/inhibit";
import { readFiringSourcesWith } from "../db/routing-alerts";
import { lockConfigShared } from "../db/routing-config";
import { addGroupMembers, claimDueGroupsNamed, readMemberAlerts } from "../db/routing-groups";
import type { Sql, TransactionSql } from "../db/sql";
import { groupScheduledHereAfterCommit, routesAtCommitHere } from "../db/wake-notify";
import { failureReason } from "../db/isolated-writes";
import { observeStage } from "./alert-stages";
import { FIRING_ALERTS_CAP, flushClaimedGroups, flushOptions } from "./group-flush";
import { mergeMemberships, planMemberships } from "./group-membership";
import { currentRouting } from "./routing-config";

/**
 * Routing at commit: the transaction that changes alerts (ingestion, the deadline job) adds the ones a route would send
 * at once (groupWait 0, to a channel with a target) to their groups itself and flushes the groups that are due now, so the deliveries commit with
 * the records that raised them and this instance's delivery engine claims them right after the commit. No outbox
 * event, no routing run, no two more commits on the way to the page. Alerts that wait for a groupWait anyway, and
 * resolutions (announced at their group's next tick), take the outbox, whose routing job batches them across commits.
 *
 * Same decisions as the routing job: the same membership plan, the same flush (silences; inhibition by the firing
 * sources that share a rule's `equal` labels with these alerts, the only ones that could inhibit them), the same
 * group locks in the same order, and the routing config of the moment: the config lock is held shared, so a config
 * save either waits for this commit (and re-routes these alerts with the others) or is read after it. When anything
 * here fails — a flush that cannot be written, a lock that deadlocks —
 * it is rolled back to its savepoint and the events go to the outbox as before, where the routing job routes them or
 * sets them aside. Nothing is routed here on an instance that does not run the alert jobs (the engine and the group
 * timer told after the commit are this instance's). Returns the fingerprints routed here.
 */
// Transactions that routed at commit once: a later step of the same transaction (an OTLP export stores its records
// step by step) takes the outbox, so a transaction locks its groups' keys once, in one sorted order, and cannot
// deadlock with another router that locks some of the same keys.
const routedBefore = new WeakSet<Sql>();

export async function routeAtCommit(sql: Sql, changed: readonly Alert[], now: Date): Promise<Set<string>> {
  const routed = new Set<string>();
  if (changed.length === 0 || !routesAtCommitHere(sql) || routedBefore.has(sql)) return routed;
  const sentAtOnce = (routing: CompiledRouting) =>
    changed.filter((alert) => pagesAtOnce(routing, alert.labels));
  const seen = await currentRouting(sql);
  let atOnce = sentAtOnce(seen.compiled);
  if (atOnce.length === 0) return routed;
  // Only a batch that routes here takes the lock; the version is read again under it.
  await lockConfigShared(sql);
  const inForce = await currentRouting(sql);
  const routing = inForce.compiled;
  if (inForce.versionId !== seen.versionId) atOnce = sentAtOnce(routing);
  if (atOnce.length === 0) return routed;
  const started = performance.now();
  routedBefore.add(sql);
  await sql.execute("savepoint receipt_route_at_commit");
  try {
    await routeAndFlush(sql, routing, atOnce, now);
  } catch (error) {
    await sql.execute("rollback to savepoint receipt_route_at_commit");
    console.error("receipt: routing at commit failed, the outbox takes the alerts:", failureReason(error));
    return routed;
  }
  observeStage("commit_route", (performance.now() - started) / 1000);
  for (const alert of atOnce) routed.add(alert.fingerprint);
  return routed;
}

async function routeAndFlush(
  sql: TransactionSql,
  routing: CompiledRouting,
  alerts: readonly Alert[],
  now: Date,
): Promise<void> {
  const scheduled = await addGroupMembers(sql, mergeMemberships(planMemberships(routing, alerts)), now);
  const isDue = (at: Date | null) => at !== null && at.getTime() <= now.getTime();
  const later = scheduled.flatMap((group) =>
    group.nextActionAt && !isDue(group.nextActionAt) ? [group.nextActionAt.getTime()] : [],
  );
  const due = scheduled.filter((group) => isDue(group.nextActionAt)).map((group) => group.groupKey);
  if (due.length > 0) {
    const groups = await claimDueGroupsNamed(sql, due, now);
    const members = await readMemberAlerts(sql, [...new Set(groups.flatMap((group) => group.members))]);
    const sources = await readFiringSourcesWith(
      sql,
      inhibitionSourceStates(routing.inhibitRules),
      inhibitionSourceLabels(routing.inhibitRules, members.map(alertOf)),
      FIRING_ALERTS_CAP,
    );
    const options = await flushOptions(sql, routing, now, sources.map(alertOf));
    const { nextActionAt } = await flushClaimedGroups(sql, groups, members, routing, now, options, false);
    if (nextActionAt) later.push(nextActionAt.getTime());
  }
  // This instance's group timer, for what these groups do next (the other instances' ticks cover a crash).
  if (later.length > 0) groupScheduledHereAfterCommit(sql, new Date(Math.min(...later)));
}
