// npm run --silent rollups -- check     → differences between the rollups and a full count of chains; exit 1 if any
// npm run --silent rollups -- rebuild   → recounts the rollups from chains (repairs, after a bulk load)
// npm run --silent rollups -- fold      → folds every pending delta into the rollups now
import { openCliDatabase } from "./cli-database";

const command = process.argv[2];
if (command !== "check" && command !== "rebuild" && command !== "fold") {
  console.error("usage: npm run --silent rollups -- check | rebuild | fold");
  process.exit(1);
}
const db = await openCliDatabase();
let failed = false;
try {
  const { inTransaction } = await import("../lib/server/db/sql");
  const { diffChainRollups, countPendingRollupDeltas } = await import("../lib/server/db/chain-rollup-check");
  const { rebuildChainRollups } = await import("../lib/server/db/chain-rollups");
  const { foldRollups } = await import("../lib/server/rollups/fold-job");
  if (command === "rebuild") {
    await inTransaction((sql) => rebuildChainRollups(sql));
    console.error("rollups rebuilt from chains");
  } else if (command === "fold") {
    while (await foldRollups()) {}
  }
  if (command === "check" || command === "fold") {
    const { differences, pending } = await inTransaction(async (sql) => {
      await sql.execute("set transaction isolation level repeatable read");
      return { differences: await diffChainRollups(sql), pending: await countPendingRollupDeltas(sql) };
    });
    for (const d of differences)
      console.log(
        `${d.rollup}\t${d.problem}\t${JSON.stringify(d.key)}\tcounted=${d.counted}\tkept=${d.kept}`,
      );
    console.error(`${differences.length} difference(s), ${pending} delta(s) not folded yet`);
    failed = differences.length > 0;
  }
} finally {
  const { getPool } = await import("../lib/server/db/client");
  await getPool().end();
  await db.stop();
}
process.exit(failed ? 1 : 0);
