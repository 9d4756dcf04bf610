import type pg from "pg";
import type { HealthRecord } from "@/lib/contract";
import type { WebhookBody } from "@/lib/routing/payload-webhook";
import type { Received } from "./scripted-receiver";

// What "no lost or doubled work" means, read straight from the tables after several app instances shared them.
// Each check returns its problems as sentences (empty: none), so a failure says which chain or delivery is wrong.

/**
 * Every record sent is stored once; each chain counts its records, shows its newest one (by observedAt), and its
 * history is one unbroken walk with one row per change: no row repeats a state or a record.
 */
export async function chainProblems(db: pg.Client, sent: readonly HealthRecord[]): Promise<string[]> {
  const expected = new Map<string, Set<string>>();
  for (const r of sent) expected.set(r.chainId, (expected.get(r.chainId) ?? new Set()).add(r.recordId));
  const chainIds = [...expected.keys()];
  const records = await db.query<{ chain_id: string; record_id: string; state: string; at: string }>(
    `select chain_id, record_id, state, observed_at::text as at from health_records
     where chain_id = any($1) order by chain_id, observed_at desc, seq desc`,
    [chainIds],
  );
  const chains = await db.query<{ chain_id: string; state: string; record_count: number; current: string }>(
    `select chain_id, state, record_count, current_record_id as current from chains where chain_id = any($1)`,
    [chainIds],
  );
  const history = await db.query<{
    chain_id: string;
    from: string | null;
    to: string;
    record_id: string | null;
  }>(
    `select chain_id, from_state as from, to_state as to, record_id from chain_state_changes
     where chain_id = any($1) and cause = 'record' order by chain_id, id`,
    [chainIds],
  );
  const problems: string[] = [];
  const stored = groupBy(records.rows, (r) => r.chain_id);
  const changes = groupBy(history.rows, (r) => r.chain_id);
  const rows = new Map(chains.rows.map((c) => [c.chain_id, c]));
  for (const [chainId, ids] of expected) {
    const mine = stored.get(chainId) ?? [];
    const storedIds = mine.map((r) => r.record_id);
    if (storedIds.length !== ids.size || new Set(storedIds).size !== storedIds.length)
      problems.push(`${chainId}: ${storedIds.length} records stored for ${ids.size} sent`);
    const chain = rows.get(chainId);
    const newest = mine[0];
    if (!chain || !newest) {
      problems.push(`${chainId}: no chain row`);
      continue;
    }
    if (chain.record_count !== ids.size) problems.push(`${chainId}: record_count ${chain.record_count}`);
    if (chain.current !== newest.record_id || chain.state !== newest.state)
      problems.push(`${chainId}: shows ${chain.current} (${chain.state}), newest is ${newest.record_id}`);
    const walk = changes.get(chainId) ?? [];
    const stateOf = new Map(mine.map((r) => [r.record_id, r.state]));
    let previous: string | null = null;
    for (const step of walk) {
      if (step.from !== previous || step.to === step.from || stateOf.get(step.record_id ?? "") !== step.to)
        problems.push(`${chainId}: history ${previous} then ${step.from} -> ${step.to} (${step.record_id})`);
      previous = step.to;
    }
    if (new Set(walk.map((s) => s.record_id)).size !== walk.length)
      problems.push(`${chainId}: a record twice`);
    if (previous !== chain.state)
      problems.push(`${chainId}: history ends in ${previous}, chain is ${chain.state}`);
  }
  return problems;
}

type Delivery = {
  id: string;
  group_key: string;
  status: string;
  attempts: number;
  logged: number;
  body: string;
};

/** How a delivery may differ from its attempt log: `exact` before any crash, `crashed` after one. */
export type LedgerMode = "exact" | "crashed";

/**
 * Every alert reached its receiver: a firing alert's newest notification says firing, a resolved one's (if it was
 * ever announced) says resolved; no alert is announced twice in a row with the same status and start; every
 * delivery is delivered, and no attempt of it was posted twice (two instances sending one claim would be). An
 * attempt may fail before reaching the receiver (a timeout under load) and be retried. `exact`: every attempt is
 * logged. `crashed`: the attempt an instance was making when it died is not logged, and its POST may or may not
 * have reached the receiver.
 */
export async function ledgerProblems(
  db: pg.Client,
  received: Received[],
  mode: LedgerMode,
): Promise<string[]> {
  const problems: string[] = [];
  const outbox = await db.query<{ n: number }>("select count(*)::int as n from alert_outbox");
  if (outbox.rows[0]?.n) problems.push(`${outbox.rows[0].n} outbox events not routed`);
  const deliveries = await db.query<Delivery>(
    `select d.id::text as id, d.group_key, d.status, d.attempts, d.body,
       (select count(*)::int from delivery_attempts a where a.delivery_id = d.id) as logged
     from deliveries d where d.kind = 'notification' order by d.id`,
  );
  const posts = new Map<string, number>();
  const postedAttempts = new Map<string, number>();
  for (const r of received) {
    const id = r.headers["receipt-delivery-id"] ?? "";
    posts.set(id, (posts.get(id) ?? 0) + 1);
    const attempt = `${id}#${r.headers["receipt-delivery-attempt"]}`;
    postedAttempts.set(attempt, (postedAttempts.get(attempt) ?? 0) + 1);
  }
  for (const [attempt, times] of postedAttempts)
    if (times > 1) problems.push(`delivery attempt ${attempt} posted ${times} times`);
  for (const d of deliveries.rows) {
    const sent = posts.get(d.id) ?? 0;
    const unlogged = d.attempts - d.logged;
    if (d.status !== "delivered") problems.push(`delivery ${d.id}: ${d.status} after ${d.attempts} attempts`);
    else if (sent < 1 || sent > d.attempts || unlogged < 0 || unlogged > (mode === "exact" ? 0 : 1))
      problems.push(`delivery ${d.id}: ${d.attempts} attempts, ${d.logged} logged, posted ${sent} times`);
  }
  const announced = new Map<string, { status: string; startsAt: string; delivery: string }[]>();
  for (const d of deliveries.rows) {
    for (const alert of (JSON.parse(d.body) as WebhookBody).alerts) {
      const list = announced.get(alert.fingerprint) ?? [];
      const last = list.at(-1);
      if (last && last.status === alert.status && last.startsAt === alert.startsAt)
        problems.push(
          `alert ${alert.fingerprint} ${alert.status} twice: deliveries ${last.delivery}, ${d.id}`,
        );
      list.push({ status: alert.status, startsAt: alert.startsAt, delivery: d.id });
      announced.set(alert.fingerprint, list);
    }
  }
  const alerts = await db.query<{ fingerprint: string; chain_id: string; status: string }>(
    "select fingerprint, chain_id, status from alerts",
  );
  for (const alert of alerts.rows) {
    const last = announced.get(alert.fingerprint)?.at(-1);
    if (alert.status === "firing" && last?.status !== "firing")
      problems.push(
        `alert ${alert.fingerprint} (${alert.chain_id}) firing, announced: ${last?.status ?? "never"}`,
      );
    if (alert.status === "resolved" && last && last.status !== "resolved")
      problems.push(`alert ${alert.fingerprint} (${alert.chain_id}) resolved, last announced firing`);
  }
  return problems;
}

/** Polls `check` until it finds no problem, then returns its last answer (problems included, for the assertion). */
export async function settled(check: () => Promise<string[]>, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const problems = await check();
    if (problems.length === 0 || Date.now() > deadline) return problems;
    await new Promise((r) => setTimeout(r, 200));
  }
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) out.set(key(row), [...(out.get(key(row)) ?? []), row]);
  return out;
}
