import { type CompiledRouting, compileRouting, loadRoutingConfig } from "@/lib/routing/compile";
import { maskSecrets, type TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { loadEditedConfig } from "@/lib/routing/secrets";
import type { ConfigError } from "@/lib/routing/validate";
import type { AuditActor } from "../audit/audit-actor";
import { appendAuditEvent } from "../db/audit-events";
import { isTransactionConflict, isTransactionTimeout } from "../db/availability";
import { getPrisma } from "../db/client";
import { retryOnConflict } from "../db/retry-on-conflict";
import {
  currentConfigVersionId,
  insertConfigVersion,
  lockConfigVersions,
  newestConfigVersionId,
  readConfigOfVersion,
  rerouteFiringAlerts,
} from "../db/routing-config";
import type { Sql } from "../db/sql";
import { ApiError } from "../http/api-error";
import { refuseTarget } from "../outbound/outbound-guard";
import { ALERT_JOBS, wakeJob } from "../worker/wake";

export type CurrentRouting = {
  /** null: no version saved yet, the shipped default is in force. */
  versionId: bigint | null;
  config: TRoutingConfig;
  compiled: CompiledRouting;
};

// Versions are immutable rows, so a compiled version can be cached for as long as it stays the newest; every
// reader checks the newest id (one indexed lookup) and another instance's save is picked up on its next read.
let cache: CurrentRouting | undefined;

/**
 * `sql`: a transaction's, for a reader inside one (routing at commit): both reads on its connection, never waiting for
 * a second one from the pool that concurrent transactions may all hold.
 */
export async function currentRouting(sql?: Sql): Promise<CurrentRouting> {
  const id = await newestConfigVersionId(sql);
  if (cache && cache.versionId === id) return cache;
  cache = id === null ? defaultRouting() : await compileVersion(id, sql);
  return cache;
}

const versionName = (id: bigint | null) => (id === null ? "default" : id.toString());

async function routingAt(id: bigint | null): Promise<CurrentRouting> {
  return id === null ? defaultRouting() : compileVersion(id);
}

function defaultRouting(): CurrentRouting {
  return {
    versionId: null,
    config: DEFAULT_ROUTING_CONFIG,
    compiled: compileRouting(DEFAULT_ROUTING_CONFIG),
  };
}

async function compileVersion(id: bigint, sql?: Sql): Promise<CurrentRouting> {
  const config = await readConfigOfVersion(id, sql);
  const loaded = config === undefined ? undefined : loadRoutingConfig(config, { stored: true });
  // Only validated configs are saved; a row that no longer loads (a rule tightened since) must not stop alerting.
  if (!loaded?.ok) {
    console.error(`receipt: routing config version ${id} does not load; using the shipped default`);
    return { ...defaultRouting(), versionId: id };
  }
  return { versionId: id, config: loaded.config, compiled: loaded.compiled };
}

export const configErrors = (errors: ConfigError[]) =>
  new ApiError(
    422,
    "invalid_routing_config",
    "the routing config is invalid; nothing was saved",
    errors.map(({ path, code, message }) => ({ path, code, message })),
  );

const configChanged = (found: bigint | null) =>
  new ApiError(409, "config_changed", "the routing config changed since it was read; reload and retry", [
    { path: "$.baseVersion", code: "config_changed", message: `current version is ${found ?? "default"}` },
  ]);

const configBusy = (why: string) =>
  new ApiError(
    409,
    "config_busy",
    "the routing config could not be saved while alerts were being written; nothing was saved, retry",
    [{ path: "$", code: "config_busy", message: why }],
    { "retry-after": "1" },
  );

/**
 * Saves queue on the config lock, each rerouting every firing alert while ingestion writes: on a loaded machine the
 * last of three took longer than Prisma's default five seconds (a 500). Bounded all the same: past it, a 409 to retry.
 */
const SAVE_TX = { maxWait: 10_000, timeout: 30_000 } as const;

/**
 * Validates and saves a config (as imported or edited in the UI) as the new current version. Masked secrets are
 * restored from the version the caller read (`baseVersion`, when given: a save based on an older version is
 * refused with 409 rather than silently overwriting someone else's change).
 */
export async function saveRoutingConfig(input: {
  config: unknown;
  actor: AuditActor;
  /** `routing.config_restore` names the version restored (`restoredFrom`). */
  audit: { action: "routing.config_apply" } | { action: "routing.config_restore"; restoredFrom: bigint };
  comment: string | null;
  baseVersion?: bigint | null;
}): Promise<{ versionId: bigint; config: TRoutingConfig }> {
  const current = await currentRouting();
  const loaded = loadEditedConfig(input.config, current.config);
  if (!loaded.ok) throw configErrors(loaded.errors);
  const refused = refusedTargets(loaded.config);
  if (refused.length > 0) throw configErrors(refused);
  // One transaction under the config lock: the version, and every firing alert routed again under it. Rerouting
  // touches rows ingestion and the alert jobs lock too; a deadlock victim is run again, whole, and a conflict that
  // outlasts the retries is a 409 to retry, never a 500.
  const versionId = await retryOnConflict(() =>
    getPrisma().$transaction(async (tx) => {
      await lockConfigVersions(tx);
      const found = await currentConfigVersionId(tx);
      if (input.baseVersion !== undefined && found !== input.baseVersion) throw configChanged(found);
      // Under the lock: the version this one replaces (another instance may have saved since `current` was read).
      const previous = found === current.versionId ? current : await routingAt(found);
      const id = await insertConfigVersion(tx, {
        config: loaded.config,
        createdBy: input.actor.actor,
        comment: input.comment,
      });
      await rerouteFiringAlerts(tx, new Date(), channelsGainingTargets(current.config, loaded.config));
      const restoredFrom = input.audit.action === "routing.config_restore" ? input.audit.restoredFrom : null;
      // Secrets masked exactly as GET config masks them: the audit log never holds a token or a webhook URL.
      await appendAuditEvent(tx, {
        ...input.actor,
        action: input.audit.action,
        targetType: "routing_config",
        targetId: id.toString(),
        before: { version: versionName(found), config: maskSecrets(previous.config) },
        after: {
          version: id.toString(),
          ...(restoredFrom === null ? {} : { restoredFrom: restoredFrom.toString() }),
          comment: input.comment,
          config: maskSecrets(loaded.config),
        },
      });
      return id;
    }, SAVE_TX),
  ).catch((error: unknown) => {
    if (isTransactionConflict(error))
      throw configBusy("the save lost a lock-order race several times in a row");
    if (isTransactionTimeout(error))
      throw configBusy(`the save waited for other saves and alert writes past ${SAVE_TX.timeout / 1000} s`);
    throw error;
  });
  // This instance routes now; the others hear the NOTIFY of the save's transaction.
  wakeJob(ALERT_JOBS.routing);
  return { versionId, config: loaded.config };
}

/** Targets the outbound policy refuses (lib/server/outbound): saved, they would only ever be refused at send. */
export function refusedTargets(config: TRoutingConfig): ConfigError[] {
  return config.channels.flatMap((channel, c) =>
    channel.targets.flatMap((target, t) => {
      const refusal = refuseTarget(target);
      return refusal ? [{ path: `$.channels[${c}].targets[${t}].url`, ...refusal }] : [];
    }),
  );
}

/**
 * Channels with more targets in `next` than in `previous` (a first target, one added or re-enabled): their firing
 * alerts were recorded as sent to nobody, and are sent again (rerouteFiringAlerts).
 */
export function channelsGainingTargets(previous: TRoutingConfig, next: TRoutingConfig): string[] {
  const live = (targets: readonly unknown[]) =>
    targets.filter((target) => (target as { enabled?: boolean }).enabled !== false).length;
  const before = new Map(previous.channels.map((channel) => [channel.name, live(channel.targets)]));
  return next.channels
    .filter((channel) => live(channel.targets) > (before.get(channel.name) ?? 0))
    .map((channel) => channel.name);
}
