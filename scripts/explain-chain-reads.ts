// npx tsx scripts/explain-chain-reads.ts [CHAINS]
// Fills a throwaway embedded PostgreSQL ($RECEIPT_DATA_DIR, default <tmp>/receipt-explain) with CHAINS synthetic chain
// rows (200,000 by default) and prints the plan and execution time of every chain-list, total and search query shape
// the API sends: the check that each filter the UI offers reads an index.
import os from "node:os";
import path from "node:path";
import pg from "pg";
process.env.RECEIPT_DATA_DIR = process.env.RECEIPT_DATA_DIR ?? path.join(os.tmpdir(), "receipt-explain");
delete process.env.DATABASE_URL;
const { openDatabase } = await import("../lib/server/db/connection-string");
const { applyMigrations } = await import("../lib/server/db/migrate");
const db = await openDatabase();
await applyMigrations(db.url);
const sql = new pg.Client({ connectionString: db.url });
await sql.connect();
const N = Number(process.argv[2] ?? 200000);
const have = Number((await sql.query("select count(*) n from chains")).rows[0].n);
if (have < N) {
  await sql.query(`insert into chains (chain_id, session_id, state, layer, reasons, current_record_id, current_seq,
      observed_at, evaluated_at, client_name, client_version, transport, server_name, tool, labels, request_id,
      operation_key, shadowed_state)
    select 'c:' || n, 's:' || (n / 4), st, 'outcome', '{}', 'r:' || n, n,
      now() - (random() * interval '30 days'), now(), 'cli-' || (n % 7), '1', 'stdio', 'srv-' || (abs(hashtext(n::text)) % 20),
      'tool-' || (n % 50), jsonb_build_object('env', case when n % 3 = 0 then 'prod' else 'staging' end,
      'team', 'team-' || (n % 9)),
      case when n % 10 < 8 then (n % 5000)::text end,
      case when n % 10 < 3 then 'op:' || n end,
      case when st = 'needs_auth' and n % 2 = 0 then 'effect_unknown' end
    from (select n, (array['healthy','healthy','healthy','healthy','healthy','healthy','unverified','unverified',
      'working','tool_failed','protocol_error','stale_catalog','needs_auth','incompatible_session',
      'false_success','effect_unknown'])[1 + (n * 7919 % 16)] st from generate_series(${have + 1}, ${N}) n) g`);
  await sql.query("vacuum analyze chains");
}
const cols = "chain_id, session_id, state, observed_at";
const S2 = "('false_success','effect_unknown')";
const C2 = "('healthy','unverified')";
const queries: [string, string][] = [
  ["newest page", `select ${cols} from chains order by observed_at desc, chain_id desc limit 51`],
  [
    "since=1h",
    `select ${cols} from chains where observed_at >= now() - interval '1 hour' order by observed_at desc, chain_id desc limit 51`,
  ],
  [
    "state=false_success,effect_unknown",
    `select ${cols} from chains where (state in ${S2} or shadowed_state in ${S2}) order by observed_at desc, chain_id desc limit 51`,
  ],
  [
    "state=healthy,unverified",
    `select ${cols} from chains where (state in ${C2} or shadowed_state in ${C2}) order by observed_at desc, chain_id desc limit 51`,
  ],
  [
    "state=2 rare&since=1h",
    `select ${cols} from chains where (state in ${S2} or shadowed_state in ${S2}) and observed_at >= now() - interval '1 hour' order by observed_at desc, chain_id desc limit 51`,
  ],
  [
    "state=2 rare&server",
    `select ${cols} from chains where (state in ${S2} or shadowed_state in ${S2}) and server_name = 'srv-3' order by observed_at desc, chain_id desc limit 51`,
  ],
  ["total cap, no filter", `select count(*) from (select 1 from chains limit 10001) t`],
  [
    "total cap, 2 rare states",
    `select count(*) from (select 1 from chains where (state in ${S2} or shadowed_state in ${S2}) limit 10001) t`,
  ],
  [
    "total cap, since=1h",
    `select count(*) from (select 1 from chains where observed_at >= now() - interval '1 hour' limit 10001) t`,
  ],
  [
    "total cap, label",
    `select count(*) from (select 1 from chains where labels @> '{"team":"team-3"}' limit 10001) t`,
  ],
  [
    "danger: state=healthy page",
    `select ${cols} from chains where state = 'healthy' order by observed_at desc, chain_id desc limit 51`,
  ],
  [
    "danger+states: needs_auth via shadow",
    `select ${cols} from chains where state = 'needs_auth' and shadowed_state = 'effect_unknown' order by observed_at desc, chain_id desc limit 51`,
  ],
  [
    "search request_id",
    `select ${cols} from chains where request_id = '42' order by observed_at desc, chain_id desc limit 51`,
  ],
  [
    "search operation_key",
    `select ${cols} from chains where operation_key = 'op:42' order by observed_at desc, chain_id desc limit 51`,
  ],
  [
    "search session count",
    `select count(*) from (select 1 from chains where session_id = 's:42' limit 1001) t`,
  ],
  ["search chain id", `select ${cols} from chains where chain_id = 'c:42'`],
];
for (const [label, text] of queries) {
  const plan = (await sql.query(`explain (analyze, costs off, timing on, summary on) ${text}`)).rows.map(
    (r) => r["QUERY PLAN"],
  );
  const exec = plan.find((l: string) => l.startsWith("Execution Time")) ?? "";
  const nodes = plan
    .filter((l: string) => /Scan|Sort|BitmapOr|Limit|Append/.test(l))
    .map((l: string) =>
      l
        .trim()
        .replace(/\(actual.*$/, "")
        .trim(),
    );
  console.log(`${label.padEnd(40)} ${exec.padEnd(28)} ${nodes.slice(0, 4).join(" | ")}`);
}
await sql.end();
await db.stop?.();
