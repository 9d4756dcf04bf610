// npm run db:seed                      → a living demo: ~600 chains over the last 7 days, a little triage already done,
//                                         and the retry guard's story (scripts/seed/demo-guard-story.ts)
// npm run db:seed -- --chains 100000   → the perf data set (docs/BENCHMARKS.md); --seed N reproduces a data set
// Records go through the real ingestion path (validate, classify, store), into the app's database as every CLI finds
// it (scripts/cli-database.ts): DATABASE_URL, or the embedded PostgreSQL under $RECEIPT_DATA_DIR (default .data/),
// which `npm start` must have made; the last line names it.
import { parseArgs } from "node:util";
import type { HealthRecord } from "../lib/contract";
import { openCliDatabase } from "./cli-database";
import { demoSession } from "./seed/demo-records";
import { allowDemoDestination, seedGuardStory } from "./seed/demo-guard-story";
import { createRandom, type Random } from "./seed/demo-world";

const { values } = parseArgs({
  options: {
    chains: { type: "string", default: "600" },
    seed: { type: "string", default: String(Date.now() % 100_000) },
    "no-triage": { type: "boolean", default: false },
  },
});
const target = Number(values.chains);
if (!Number.isInteger(target) || target < 1) {
  console.error("--chains must be a positive integer");
  process.exit(1);
}

// The demo's triage and the retry guard's story (one chain of the target) come with a living demo, not a perf set.
const story = !values["no-triage"] && target <= 5_000;
if (story) allowDemoDestination();
const db = await openCliDatabase();
try {
  const { prepareRecords } = await import("../lib/server/ingest/prepare-records");
  const { saveRecords } = await import("../lib/server/ingest/store-records");
  const random = createRandom(Number(values.seed));
  const runTag = `demo${Date.now().toString(36)}`;
  const nowMs = Date.now();
  const started = performance.now();
  let batch: HealthRecord[] = [];
  let chains = 0;
  let records = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await saveRecords(await prepareRecords(batch));
    records += batch.length;
    batch = [];
  };
  const demoChains = story ? target - 1 : target;
  for (let session = 0; chains < demoChains; session++) {
    const sessionRecords = demoSession(random, `${runTag}-${session}`, observedAt(random, nowMs), nowMs);
    const newChains = new Set(sessionRecords.map((record) => record.chainId));
    if (chains + newChains.size > demoChains) continue; // keep the count exact: try a smaller session
    chains += newChains.size;
    batch.push(...sessionRecords);
    if (batch.length >= 1000) await flush();
    if (target >= 10_000 && session % 2000 === 0) process.stderr.write(`\r${chains} chains…`);
  }
  await flush();
  const guardStory = story ? await seedGuardStory(runTag, Date.now()) : "";
  if (story) {
    chains++;
    records++;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.error(
    `\rseeded ${chains} chains (${records} records) into ${db.where} in ${seconds} s, run ${runTag}, seed ${values.seed}`,
  );
  if (story) {
    const { seedTriage } = await import("./seed/demo-triage");
    console.error(await seedTriage(runTag));
    console.error(guardStory);
  }
  const { countStates } = await import("../lib/server/db/chains");
  const { states, shadowed } = await countStates();
  const line = (counts: Record<string, number>) =>
    Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([state, n]) => `${state} ${n}`)
      .join(", ");
  console.error(`database now holds: ${line(states)}; shadowed: ${line(shadowed) || "none"}`);
} finally {
  const { getPrisma } = await import("../lib/server/db/client");
  await getPrisma().$disconnect();
  await db.stop();
}

/** Recent hours are busiest, so every overview window (1 h, 24 h, 7 d) has something to show. */
function observedAt(random: Random, nowMs: number): number {
  const hour = 3_600_000;
  const span = random.weighted({ hour: 6, day: 40, week: 54 });
  const range = span === "hour" ? hour : span === "day" ? 24 * hour : 7 * 24 * hour;
  return nowMs - Math.floor(random.next() * range) - 10 * 60_000 * (span === "hour" ? 0 : 1);
}
