// npx tsx scripts/explain-chain-reads.ts [CHAINS] [LABEL-FILTER]
// Fills a throwaway embedded PostgreSQL ($RECEIPT_DATA_DIR, default <tmp>/receipt-explain) with CHAINS synthetic chain
// rows (200,000 by default), then calls every chain-list, queue and aggregate read the dashboard sends
// (scripts/explain/read-shapes.ts) through the app's own repository functions, records the SQL each issues, and
// prints its wall time (median of 3) and each statement's plan and execution time: the check that each filter the UI
// offers reads an index. LABEL-FILTER (a substring) runs only the matching shapes; PLANS=1 prints whole plans.
import os from "node:os";
import path from "node:path";
import pg from "pg";
process.env.RECEIPT_DATA_DIR = process.env.RECEIPT_DATA_DIR ?? path.join(os.tmpdir(), "receipt-explain");
delete process.env.DATABASE_URL;
const { openDatabase } = await import("../lib/server/db/connection-string");
const { applyMigrations } = await import("../lib/server/db/migrate");
const db = await openDatabase({ create: true });
await applyMigrations(db.url);
const sql = new pg.Client({ connectionString: db.url });
await sql.connect();
const N = Number(process.argv[2] ?? 200000);
const have = Number((await sql.query("select count(*) n from chains")).rows[0].n);
if (have < N) {
  await sql.query(`insert into chains (chain_id, session_id, state, layer, reasons, current_record_id, current_seq,
      observed_at, evaluated_at, client_name, client_version, transport, server_name, tool, labels, request_id,
      operation_key, shadowed_state, evidence)
    select 'c:' || n, 's:' || (n / 4), st, 'outcome',
      array[case st when 'healthy' then 'outcome.verified' when 'unverified' then
        (array['outcome.pending','outcome.unavailable','outcome.no_receipt'])[1 + n % 3]
        when 'false_success' then 'outcome.verifier_failed' else st || '.synthetic' end], 'r:' || n, n,
      now() - (random() * interval '30 days'), now(), 'cli-' || (n % 7), '1', 'stdio', 'srv-' || (abs(hashtext(n::text)) % 20),
      'tool-' || (n % 50), jsonb_build_object('env', case when n % 3 = 0 then 'prod' else 'staging' end,
      'team', 'team-' || (n % 9)),
      case when n % 10 < 8 then (n % 5000)::text end,
      case when n % 10 < 3 then 'op:' || n end,
      case when st = 'needs_auth' and n % 2 = 0 then 'effect_unknown' end,
      case when n % 11 = 0 then 'weak' end
    from (select n, (array['healthy','healthy','healthy','healthy','healthy','healthy','unverified','unverified',
      'working','tool_failed','protocol_error','stale_catalog','needs_auth','incompatible_session',
      'false_success','effect_unknown'])[1 + (n::bigint * 7919 % 16)] st from generate_series(${have + 1}, ${N}) n) g`);
  // Rows inserted here append no rollup deltas: recount the rollups, as the benchmark's bulk seed does.
  const { rebuildChainRollups } = await import("../lib/server/db/chain-rollups");
  await sql.query("begin");
  await rebuildChainRollups({
    query: async (text, values = []) => (await sql.query(text as string, [...values])).rows,
    execute: async (text, values = []) => (await sql.query(text as string, [...values])).rowCount ?? 0,
  });
  await sql.query("commit");
  await sql.query("vacuum analyze");
}
const { readShapes } = await import("./explain/read-shapes");
const { PrismaClient } = await import("../lib/generated/prisma/client");
const { PrismaPg } = await import("@prisma/adapter-pg");
type Statement = { query: string; params: string };
const issued: Statement[] = [];
const prisma = new PrismaClient({
  adapter: new PrismaPg({ connectionString: db.url, max: 4 }),
  log: [{ emit: "event", level: "query" }],
});
prisma.$on("query", (event) => issued.push({ query: event.query, params: event.params }));
(globalThis as unknown as { receiptPrisma: unknown }).receiptPrisma = prisma;

const only = process.argv[3];
const wholePlans = process.env.PLANS === "1";
for (const shape of await readShapes()) {
  if (only && !shape.label.includes(only)) continue;
  try {
    await shape.run(); // warm the cache
  } catch (error) {
    console.log(`\n## ${shape.label}: failed: ${(error as Error).message.split("\n").at(-1)}`);
    continue;
  }
  const wall: number[] = [];
  for (let i = 0; i < 3; i++) {
    issued.length = 0;
    const started = performance.now();
    await shape.run();
    wall.push(performance.now() - started);
  }
  wall.sort((a, b) => a - b);
  console.log(`\n## ${shape.label}: ${wall[1]?.toFixed(1)} ms (median of 3 calls)`);
  for (const statement of issued) {
    if (!/^\s*(select|with|\()/i.test(statement.query)) continue;
    const params = JSON.parse(statement.params) as unknown[];
    const plan = (
      await sql.query(`explain (analyze, costs off, timing on, summary on) ${statement.query}`, params)
    ).rows.map((r) => r["QUERY PLAN"] as string);
    const exec = plan.find((l) => l.startsWith("Execution Time")) ?? "";
    const nodes = plan
      .filter((l) => /Scan|Sort|Limit|Aggregate|Join|Loop|Rows Removed|Heap Fetches|Heap Blocks/.test(l))
      .map((l) =>
        l
          .trim()
          .replace(/\(actual time=[0-9.]+\.\.[0-9.]+ /, "(")
          .trim(),
      );
    console.log(`  ${exec}`);
    for (const node of wholePlans ? plan : nodes.slice(0, 8)) console.log(`    ${node}`);
  }
}
await prisma.$disconnect();
await sql.end();
await db.stop?.();
