import { setTimeout as sleep } from "node:timers/promises";
import { FORGET_FAILURES_AFTER_MS } from "@/lib/auth/sign-in-backoff";
import { batchBounds, nextBatch, pauseAfterStep } from "@/lib/retention/step-pacing";
import { deleteEmptiedRollupRows } from "../db/chain-rollups";
import { deleteOtlpRefusalsBefore } from "../db/otlp-refusals";
import { deleteIdleSessionSpans } from "../db/otlp-spans";
import {
  deleteChains,
  deleteFinishedDeliveries,
  deleteForgottenOperations,
  deleteResolvedAlerts,
  lockPrunableChains,
  tryLockPruning,
} from "../db/retention";
import {
  deleteOrphanRecords,
  dropRecordPartition,
  ensureRecordPartitions,
  listRecordPartitions,
  partitionHoldsStoredChains,
  type RecordPartition,
} from "../db/retention-partitions";
import { deleteIdleGroups } from "../db/routing-groups";
import { deleteSettledSetAside } from "../db/set-aside";
import { deleteForgottenSignInCounts } from "../db/sign-in-throttle";
import { inTransaction, poolSql } from "../db/sql";
import { deleteExpiredSessions } from "../db/users";
import { type RetentionSettings, retentionSettings } from "./settings";

const DAY_MS = 24 * 60 * 60_000;
/** Longer than any ingestion transaction: a record received this long before a week's check is seen by it. */
const LONGEST_WRITE_MS = 10 * 60_000;
/** A week found holding a kept chain's records is read again after this long, not on every run. */
const HELD_WEEK_RECHECK_MS = 60 * 60_000;

export type PruneStep = {
  chains: number;
  alerts: number;
  deliveries: number;
  groups: number;
  setAside: number;
  spans: number;
  /** Rollup rows left holding no chain, past the record cutoff. */
  rollupRows: number;
  /** Expired sign-in sessions. */
  sessions: number;
  /** Sign-in throttle counts nobody added to for a day (lib/auth/sign-in-backoff.ts forgets them by then). */
  signInCounts: number;
  /** Retry-guard operations (and their decisions) untouched past the record cutoff whose chains are all gone. */
  operations: number;
  records: number;
  partitionsDropped: string[];
  partitionsMade: string[];
  /** A batch limit was reached: the job runs again at once. */
  workLeft: boolean;
  /** Some kind filled its batch: the step's length says what a batch costs. */
  filled: boolean;
};

const heldWeeks = new Map<string, number>();

/**
 * One step of retention (docs/ARCHITECTURE.md, "Retention"): weekly partitions made ahead, then at most one batch of
 * each kind — prunable chains with their history, resolved alerts, finished deliveries, emptied notification
 * groups, settled set-aside items, idle OTLP sessions' spans, rollup rows emptied past the cutoff, expired sign-in
 * sessions and forgotten sign-in throttle counts — and, once no prunable chain is left, the weeks past
 * the cutoff: dropped whole, or their pruned chains' records deleted a batch at a time while a kept chain holds the
 * week. Every transaction is short and holds the pruning lock, so several app
 * instances never prune at once, and ingestion never waits on pruning but for a moment's lock of a week's table.
 */
export async function pruneStep(
  now: Date = new Date(),
  settings: RetentionSettings = retentionSettings(),
): Promise<PruneStep> {
  const step: PruneStep = {
    chains: 0,
    alerts: 0,
    deliveries: 0,
    groups: 0,
    setAside: 0,
    spans: 0,
    rollupRows: 0,
    sessions: 0,
    signInCounts: 0,
    operations: 0,
    records: 0,
    partitionsDropped: [],
    partitionsMade: await ensureRecordPartitions(inTransaction, now, poolSql()),
    workLeft: false,
    filled: false,
  };
  const recordCutoff = new Date(now.getTime() - settings.recordDays * DAY_MS);
  const alertCutoff = new Date(now.getTime() - settings.alertDays * DAY_MS);
  const locked = await inTransaction(async (sql) => {
    if (!(await tryLockPruning(sql))) return false;
    const chainIds = await lockPrunableChains(sql, recordCutoff, settings.batch);
    step.chains = await deleteChains(sql, chainIds);
    step.workLeft ||= chainIds.length > 0;
    return true;
  });
  if (!locked) return step;
  await inTransaction(async (sql) => {
    if (!(await tryLockPruning(sql))) return;
    step.alerts = await deleteResolvedAlerts(sql, alertCutoff, settings.batch);
    step.deliveries = await deleteFinishedDeliveries(sql, alertCutoff, settings.batch);
    // After the alerts and deliveries: the groups they emptied and the items they settled go in the same step.
    step.groups = await deleteIdleGroups(sql, alertCutoff, settings.batch);
    step.setAside = await deleteSettledSetAside(sql, alertCutoff, settings.batch);
    step.workLeft ||= [step.alerts, step.deliveries, step.groups, step.setAside].includes(settings.batch);
  });
  const spanCutoff = new Date(now.getTime() - settings.spanDays * DAY_MS);
  await inTransaction(async (sql) => {
    if (!(await tryLockPruning(sql))) return;
    step.spans = await deleteIdleSessionSpans(sql, spanCutoff, settings.batch);
    // What /v1/traces refused is kept as long as what it stored (the coverage page's counts).
    const refusals = await deleteOtlpRefusalsBefore(sql, spanCutoff, settings.batch);
    step.workLeft ||= step.spans > 0 || refusals === settings.batch;
  });
  await inTransaction(async (sql) => {
    if (!(await tryLockPruning(sql))) return;
    step.rollupRows = await deleteEmptiedRollupRows(sql, recordCutoff, settings.batch);
    step.workLeft ||= step.rollupRows > 0;
  });
  await inTransaction(async (sql) => {
    if (!(await tryLockPruning(sql))) return;
    step.operations = await deleteForgottenOperations(sql, recordCutoff, settings.batch);
    step.workLeft ||= step.operations === settings.batch;
  });
  await inTransaction(async (sql) => {
    if (!(await tryLockPruning(sql))) return;
    step.sessions = await deleteExpiredSessions(sql, now, settings.batch);
    const forgetBefore = new Date(now.getTime() - FORGET_FAILURES_AFTER_MS);
    step.signInCounts = await deleteForgottenSignInCounts(sql, forgetBefore, settings.batch);
    step.workLeft ||= [step.sessions, step.signInCounts].includes(settings.batch);
  });
  if (step.chains === 0) await pruneOldWeeks(step, now, recordCutoff, settings.batch);
  const counts = [
    step.chains,
    step.alerts,
    step.deliveries,
    step.groups,
    step.setAside,
    step.spans,
    step.rollupRows,
    step.sessions,
    step.operations,
  ];
  step.filled = [...counts, step.signInCounts, step.records].some((n) => n >= settings.batch);
  return step;
}

async function pruneOldWeeks(step: PruneStep, now: Date, cutoff: Date, batch: number): Promise<void> {
  const old = (await listRecordPartitions(poolSql())).filter((week) => week.to <= cutoff);
  for (const week of old) {
    if ((heldWeeks.get(week.name) ?? 0) > now.getTime()) continue;
    const checkedFrom = new Date(Date.now() - LONGEST_WRITE_MS);
    if (!(await partitionHoldsStoredChains(poolSql(), week))) {
      if (await dropWeek(week, checkedFrom)) step.partitionsDropped.push(week.name);
      continue;
    }
    const deleted = await inTransaction(async (sql) =>
      (await tryLockPruning(sql)) ? deleteOrphanRecords(sql, week.name, cutoff, batch) : 0,
    );
    step.records += deleted;
    if (deleted === batch) step.workLeft = true;
    else heldWeeks.set(week.name, now.getTime() + HELD_WEEK_RECHECK_MS);
  }
}

async function dropWeek(week: RecordPartition, checkedFrom: Date): Promise<boolean> {
  try {
    return await inTransaction(async (sql) =>
      (await tryLockPruning(sql)) ? dropRecordPartition(sql, week, checkedFrom) : false,
    );
  } catch (error) {
    // 55P03: the brief wait for health_records' lock ran out (a long read or write held it): the next run tries.
    if ((error as { code?: string }).code === "55P03") return false;
    throw error;
  }
}

/** This instance's batch for its next step (undefined: the setting's), adapted after every step. */
let nextStepBatch: number | undefined;

/**
 * The job's run: one step, then a pause when work is left, so a backlog is worked off without crowding ingestion.
 * The batch adapts from step to step (`nextBatch`): larger while steps are quick, smaller when they are slow.
 */
export async function runRetention(): Promise<boolean> {
  const settings = retentionSettings();
  const bounds = batchBounds(settings.batch);
  const size = nextStepBatch ?? bounds.start;
  const started = performance.now();
  const step = await pruneStep(new Date(), { ...settings, batch: size });
  const stepMs = performance.now() - started;
  nextStepBatch = nextBatch(size, stepMs, step.filled, bounds);
  if (step.workLeft) await sleep(pauseAfterStep(stepMs, settings.pauseMs));
  return step.workLeft;
}
