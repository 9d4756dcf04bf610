import { poolSql } from "./sql";

// The reads of the alerts page, the chain page's alert list and the silence preview. Each one is bounded by a
// LIMIT and walks an index: alerts by (status, starts_at) or (status, ends_at), deliveries by the GIN index on
// their fingerprints.

export type AlertListRow = {
  fingerprint: string;
  chainId: string;
  sessionId: string;
  state: string;
  severity: string;
  status: "firing" | "resolved";
  labels: Record<string, string>;
  reasons: string[];
  retrySafe: boolean | null;
  startsAt: Date;
  endsAt: Date | null;
  resolvedBy: string | null;
  assignee: { id: string; username: string; displayName: string | null } | null;
};

// The assignee as a scalar subquery by the users' primary key: the list's own index walk is unchanged.
const ALERT_LIST_SQL = `fingerprint, chain_id as "chainId", session_id as "sessionId", state, severity, status,
  labels, reasons, retry_safe as "retrySafe", starts_at as "startsAt", ends_at as "endsAt", resolved_by as "resolvedBy",
  (select json_build_object('id', u.id, 'username', u.username, 'displayName', u.display_name)
    from users u where u.id = alerts.assignee_user_id) as assignee`;

export type AlertListFilter = {
  /** firing: newest first; resolved: those ended since `resolvedSince`, latest first. */
  status: "firing" | "resolved";
  states?: string[];
  severity?: string;
  chainId?: string;
  /** Case-insensitive, within the chain id or any label. */
  text?: string;
  assigneeUserId?: string;
  resolvedSince: Date;
  limit: number;
};

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/** The alerts page's rows: one status, optional filters, at most `limit`. */
export async function listAlertsForWorkspace(filter: AlertListFilter): Promise<AlertListRow[]> {
  const params: unknown[] = [];
  const arg = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = [`status = ${arg(filter.status)}`];
  if (filter.status === "resolved") where.push(`ends_at >= ${arg(filter.resolvedSince)}`);
  if (filter.states?.length) where.push(`state = any(${arg(filter.states)}::text[])`);
  if (filter.severity) where.push(`severity = ${arg(filter.severity)}`);
  if (filter.chainId) where.push(`chain_id = ${arg(filter.chainId)}`);
  if (filter.assigneeUserId) where.push(`assignee_user_id = ${arg(filter.assigneeUserId)}::uuid`);
  if (filter.text) {
    const pattern = arg(likePattern(filter.text));
    where.push(`(chain_id ilike ${pattern} or labels::text ilike ${pattern})`);
  }
  const order = filter.status === "firing" ? "starts_at desc" : "ends_at desc";
  return poolSql().query<AlertListRow>(
    `select ${ALERT_LIST_SQL} from alerts where ${where.join(" and ")}
      order by ${order}, fingerprint limit ${arg(filter.limit)}`,
    params,
  );
}

/** One chain's alerts, firing first, then the most recently resolved. */
export async function listAlertsOfChain(chainId: string, limit: number): Promise<AlertListRow[]> {
  return poolSql().query<AlertListRow>(
    `select ${ALERT_LIST_SQL} from alerts where chain_id = $1
      order by status = 'firing' desc, coalesce(ends_at, starts_at) desc, fingerprint limit $2`,
    [chainId, limit],
  );
}

/** Firing alerts carrying these label pairs (all of them; none given: any), newest first, at most `limit`. */
export async function listFiringAlertsWithLabels(
  labels: Record<string, string>,
  limit: number,
): Promise<AlertListRow[]> {
  return poolSql().query<AlertListRow>(
    `select ${ALERT_LIST_SQL} from alerts where status = 'firing' and labels @> $1::jsonb
      order by starts_at desc, fingerprint limit $2`,
    [JSON.stringify(labels), limit],
  );
}

export type AlertDeliveryRow = {
  id: bigint;
  groupKey: string;
  channel: string;
  targetIndex: number;
  targetType: string;
  status: string;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  alertFingerprints: string[];
};

// Looked up alert by alert (a containment of one value, which the GIN index answers exactly), newest first: a
// single overlap with hundreds of fingerprints is estimated so broadly that the planner scans the whole table.

/** The newest notifications that carried each of these alerts, at most `perAlert` each, newest first. */
export async function listDeliveriesOfAlerts(
  fingerprints: string[],
  perAlert: number,
): Promise<AlertDeliveryRow[]> {
  if (fingerprints.length === 0) return [];
  return poolSql().query<AlertDeliveryRow>(
    `select distinct on (d.id) d.* from unnest($1::text[]) as f(fingerprint)
      cross join lateral (
        select id, group_key as "groupKey", channel, target_index as "targetIndex", target_type as "targetType",
          status, attempts, max_attempts as "maxAttempts", last_error as "lastError", created_at as "createdAt",
          delivered_at as "deliveredAt", alert_fingerprints as "alertFingerprints"
        from deliveries where alert_fingerprints @> array[f.fingerprint] and kind = 'notification'
        order by id + 0 desc limit $2
      ) as d
      order by d.id desc`,
    [[...new Set(fingerprints)], perAlert],
  );
}

// `order by id + 0`: ordered by the primary key, the planner would walk every delivery backwards looking for these
// fingerprints; this way it takes the rows the GIN index finds and sorts them.

/** The delivery log filtered to some alerts: the ids of a page, newest first, older than `beforeId` if given. */
export async function deliveryIdsOfAlerts(
  fingerprints: string[],
  filter: { status?: string; channel?: string; beforeId?: bigint; limit: number },
): Promise<bigint[]> {
  const rows = await poolSql().query<{ id: bigint }>(
    `select id from deliveries where alert_fingerprints && $1::text[]
        and ($2::text is null or status = $2) and ($3::text is null or channel = $3) and ($4::bigint is null or id < $4)
      order by id + 0 desc limit $5`,
    [
      fingerprints,
      filter.status ?? null,
      filter.channel ?? null,
      filter.beforeId?.toString() ?? null,
      filter.limit,
    ],
  );
  return rows.map((row) => row.id);
}

/** The chain of each of these alerts (the delivery log's links). */
export async function readChainsOfAlerts(
  fingerprints: string[],
): Promise<{ fingerprint: string; chainId: string; state: string }[]> {
  if (fingerprints.length === 0) return [];
  return poolSql().query(
    `select fingerprint, chain_id as "chainId", state from alerts where fingerprint = any($1::text[])`,
    [[...new Set(fingerprints)]],
  );
}

/** The fingerprints of a chain's alerts (the delivery log filtered to a chain). */
export async function readAlertFingerprintsOfChain(chainId: string): Promise<string[]> {
  const rows = await poolSql().query<{ fingerprint: string }>(
    "select fingerprint from alerts where chain_id = $1 limit 64",
    [chainId],
  );
  return rows.map((row) => row.fingerprint);
}
