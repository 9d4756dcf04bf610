// npm run --silent reclassify              → rebuilds every stored OTLP session from its spans, then classifies every
//                                            chain's current record again; prints what changed (one-off, after an
//                                            upgrade whose mapping or classifier reads stored evidence differently)
// npm run --silent reclassify -- --dry-run → the same counts, nothing written
import { openCliDatabase } from "./cli-database";

const args = process.argv.slice(2);
const dryRun = args.includes("--dry-run");
if (args.some((arg) => arg !== "--dry-run")) {
  console.error("usage: npm run --silent reclassify [-- --dry-run]");
  process.exit(1);
}
const db = await openCliDatabase();
try {
  const { rebuildStoredSessions } = await import("../lib/server/otlp/rebuild-stored-sessions");
  const { reclassifyStoredChains } = await import("../lib/server/chains/reclassify-stored-chains");
  const sessions = await rebuildStoredSessions({ dryRun });
  console.log(
    `otlp sessions\t${sessions.sessions}\trecords stored ${sessions.recordsStored}\tunchanged ${sessions.recordsUnchanged}\tspans left out ${sessions.spansLeftOut}\troles updated ${sessions.rolesUpdated}`,
  );
  const chains = await reclassifyStoredChains({ dryRun });
  console.log(
    `chains\t${chains.chains}\trewritten ${chains.rewritten}\tstate moved ${chains.moved}\tunreadable ${chains.unreadable}`,
  );
  if (dryRun) console.error("dry run: nothing written");
} finally {
  const { getPool } = await import("../lib/server/db/client");
  await getPool().end();
  await db.stop();
}
process.exit(0);
