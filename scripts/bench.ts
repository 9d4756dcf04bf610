/**
 * Classifier throughput (issue 3): `npm run bench`.
 *
 * Builds ~10k varied records from the seed fixture's shapes (both eras, every state, 0–20
 * progress entries, 0–16 labels, shifted clocks), then measures on one thread:
 *   classify            — records already validated
 *   validate + classify — parsed JSON objects through validateRecord, then classify
 * Each is run RUNS times for RUN_MS; the median run is reported. Targets: ≥ 200,000/s and
 * ≥ 50,000/s. JSON.parse is excluded: it belongs to the transport, not to the contract.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { classify } from "../lib/classifier/classify";
import type { HealthRecord } from "../lib/contract/record";
import { validateRecord } from "../lib/contract/validate";

const RECORDS = 10_000;
const RUNS = 7;
const RUN_MS = 1_000;
const TARGETS = { classify: 200_000, validateAndClassify: 50_000 };

type Json = Record<string, unknown>;

/** Small deterministic PRNG (mulberry32) so every bench run sees the same mix. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Shifts every timestamp in a record by `ms` (keeps each shape's state, varies the values). */
function shiftTimes(value: unknown, ms: number): unknown {
  if (typeof value === "string") {
    return /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(Date.parse(value) + ms).toISOString() : value;
  }
  if (Array.isArray(value)) return value.map((item) => shiftTimes(item, ms));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shiftTimes(item, ms)]));
  }
  return value;
}

function generate(): Json[] {
  const fixtureUrl = new URL("../tests/fixtures/seed-cases.json", import.meta.url);
  const seeds = (JSON.parse(readFileSync(fixtureUrl, "utf8")) as { cases: { record: Json }[] }).cases.map(
    (c) => c.record,
  );
  const random = prng(20261130);
  const records: Json[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const seed = seeds[i % seeds.length] as Json;
    const record = shiftTimes(seed, Math.floor(random() * 86_400_000)) as Json & { call?: Json };
    record.recordId = `rec:bench-${i}`;
    record.chainId = `chain:bench-${i % 2_000}`;
    const labelCount = Math.floor(random() * 17);
    record.labels = Object.fromEntries(
      Array.from({ length: labelCount }, (_, k) => [`label.${k}`, `value-${k}-${i % 97}`]),
    );
    const call = record.call;
    if (call !== undefined && Array.isArray(call.progress) && call.progress.length === 0 && random() < 0.5) {
      // Progress before the response (or the observation) so it stays valid evidence.
      const startedMs = Date.parse(String(call.startedAt));
      const count = Math.floor(random() * 21);
      call.progressToken = "pt-bench";
      call.progress = Array.from({ length: count }, (_, k) => ({
        at: new Date(startedMs + k).toISOString(),
        token: "pt-bench",
        progress: k + 1,
        total: count,
      }));
    }
    records.push(record);
  }
  return records;
}

/** Runs `work` over all records repeatedly for RUN_MS; returns records per second. */
function measure(records: readonly unknown[], work: (record: unknown) => string): number {
  let processed = 0;
  let sink = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < RUN_MS) {
    for (const record of records) sink += work(record).length;
    processed += records.length;
    elapsed = performance.now() - start;
  }
  if (sink === 0) throw new Error("benchmark produced nothing");
  return (processed / elapsed) * 1_000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function bench(
  name: string,
  records: readonly unknown[],
  work: (record: unknown) => string,
  target: number,
): void {
  measure(records.slice(0, 2_000), work); // warm-up: let the JIT settle before timing
  const runs = Array.from({ length: RUNS }, () => measure(records, work));
  const figure = Math.round(median(runs));
  const verdict = figure >= target ? "ok" : "BELOW TARGET";
  const spread = `${format(Math.min(...runs))}–${format(Math.max(...runs))}`;
  console.log(
    `${name.padEnd(20)} ${format(figure).padStart(10)} records/s   median of ${RUNS} × ${RUN_MS} ms (runs ${spread}); target ≥ ${format(target)}: ${verdict}`,
  );
}

function format(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

function main(): void {
  const raw = generate();
  const validated: HealthRecord[] = raw.map((record) => {
    const result = validateRecord(record);
    if (!result.ok) throw new Error(`bench record invalid: ${JSON.stringify(result.issues)}`);
    return result.record;
  });
  const states = new Map<string, number>();
  for (const record of validated) {
    const { state } = classify(record);
    states.set(state, (states.get(state) ?? 0) + 1);
  }
  const load = loadavg()[0]?.toFixed(2) ?? "?";
  console.log(
    `node ${process.version} · ${cpus()[0]?.model ?? "unknown cpu"} · ${cpus().length} cores · single thread · load average ${load} (other work on the machine lowers the figures)`,
  );
  console.log(
    `${validated.length.toLocaleString("en-US")} records: ${[...states].map(([s, n]) => `${s} ${n}`).join(", ")}`,
  );
  bench("classify", validated, (record) => classify(record as HealthRecord).state, TARGETS.classify);
  bench(
    "validate + classify",
    raw,
    (record) => {
      const result = validateRecord(record);
      return result.ok ? classify(result.record).state : result.code;
    },
    TARGETS.validateAndClassify,
  );
}

main();
