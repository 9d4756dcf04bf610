/**
 * The rows the ingestion ceiling writes for a prepared batch (records, chains, state history), as plain multi-row
 * INSERTs in one transaction: no validation, no ORM, nothing Receipt adds (alerts, routing, rollups). bench:ingest's
 * raw path runs it on records prepared before its clock starts; the bare ingester runs it behind a bare HTTP server.
 */
import type pg from "pg";
import type { PreparedRecord } from "../../lib/server/ingest/prepare-records";

export async function writeCeilingRows(client: pg.ClientBase, batch: PreparedRecord[]): Promise<void> {
  await client.query("begin");
  try {
    await insertRecords(client, batch);
    await upsertChains(client, batch);
    await insertStateChanges(client, batch);
    await client.query("commit");
  } catch (error) {
    await client.query("rollback");
    throw error;
  }
}

/** `($1,$2,…),($n+1,…)` for `rows` rows of `width` parameters each. */
function placeholders(rows: number, width: number): string {
  return Array.from(
    { length: rows },
    (_, i) => `(${Array.from({ length: width }, (_, k) => `$${i * width + k + 1}`).join(",")})`,
  ).join(",");
}

function insertRecords(client: pg.ClientBase, batch: PreparedRecord[]) {
  const values = batch.flatMap(({ record, json, classification }) => [
    record.recordId,
    record.chainId,
    record.session.id,
    record.observedAt,
    json,
    classification.state,
    classification.layer,
    classification.reasons,
  ]);
  return client.query(
    `insert into health_records (record_id, chain_id, session_id, observed_at, body, state, layer, reasons)
      values ${placeholders(batch.length, 8)}`,
    values,
  );
}

function upsertChains(client: pg.ClientBase, batch: PreparedRecord[]) {
  const latest = [...new Map(batch.map((p) => [p.record.chainId, p])).values()];
  const values = latest.flatMap(({ record, classification }) => [
    record.chainId,
    record.session.id,
    classification.state,
    classification.layer,
    classification.reasons,
    record.recordId,
    0,
    record.observedAt,
    record.observedAt,
    record.session.client.name,
    record.session.client.version,
    record.session.transport,
    JSON.stringify(record.labels ?? {}),
  ]);
  return client.query(
    `insert into chains (chain_id, session_id, state, layer, reasons, current_record_id, current_seq, observed_at,
        evaluated_at, client_name, client_version, transport, labels) values ${placeholders(latest.length, 13)}
      on conflict (chain_id) do update set state = excluded.state`,
    values,
  );
}

function insertStateChanges(client: pg.ClientBase, batch: PreparedRecord[]) {
  const values = batch.flatMap(({ record, classification }) => [
    record.chainId,
    classification.state,
    classification.reasons[0],
    record.observedAt,
    record.recordId,
  ]);
  const rows = batch.map((_, i) => {
    const o = i * 5;
    return `($${o + 1},null,$${o + 2},$${o + 3},$${o + 4},$${o + 5},'record')`;
  });
  return client.query(
    `insert into chain_state_changes (chain_id, from_state, to_state, reason, at, record_id, cause)
      values ${rows.join(",")}`,
    values,
  );
}
