import type { HealthRecord } from "@/lib/contract";
import { liveCase, rebased } from "./dashboard-records";
import { runningWriteRecord } from "./record-builders";

// The records of the several-instances test (tests/integration/scaleout.test.ts): chains whose records change
// state, sent as overlapping batches, and in-flight writes whose deadlines expire while every worker runs.

/** Every state a finished record can be in: each ingested chain walks through several of them. */
const FINISHED_STATES = [
  "healthy",
  "needs_auth",
  "incompatible_session",
  "stale_catalog",
  "protocol_error",
  "tool_failed",
  "effect_unknown",
  "false_success",
];

/**
 * `recordsPerChain` records for each of `chains` chains of one run: a second apart, each in another state, all with
 * the chain's own session, server and tool so its alerts keep their labels. `labels.suite` routes them.
 */
export function changingChains(
  run: string,
  chains: number,
  recordsPerChain: number,
  suite: string,
  nowMs = Date.now(),
): HealthRecord[] {
  const out: HealthRecord[] = [];
  for (let c = 0; c < chains; c++) {
    for (let k = 0; k < recordsPerChain; k++) {
      const state = FINISHED_STATES[(c + k * 3) % FINISHED_STATES.length] as string;
      const record = rebased(liveCase(run, state, nowMs), nowMs - 60_000 + k * 1000, run);
      record.recordId = `rec:${run}-${c}-${k}`;
      record.chainId = `chain:${run}-${c}`;
      record.session.id = `sess:${run}-${c}`;
      if (record.session.server) record.session.server.name = `srv-${run}-${c}`;
      if (record.call) record.call.tool = "scale_tool";
      record.labels = { suite };
      out.push(record);
    }
  }
  return out;
}

/** An in-flight write observed now whose deadline is `deadlineMs` away: `working` until then. */
export function expiringWrite(id: string, deadlineMs: number, suite: string): HealthRecord {
  return runningWriteRecord(deadlineMs, (_call, r) => {
    r.recordId = `rec:${id}`;
    r.chainId = `chain:${id}`;
    r.session.id = `sess:${id}`;
    if (r.session.server) r.session.server.name = `srv-${id}`;
    r.labels = { suite };
  });
}

/** Deterministic shuffle (a seeded LCG), so a failing run can be replayed. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * Batches covering every record at least once (a shuffled split), then as many again drawn at random from the same
 * records: batches overlap, and many records arrive several times.
 */
export function overlappingBatches(records: readonly HealthRecord[], size: number, seed: number) {
  const covering = shuffled(records, seed);
  const batches: HealthRecord[][] = [];
  for (let i = 0; i < covering.length; i += size) batches.push(covering.slice(i, i + size));
  const count = batches.length;
  for (let b = 0; b < count; b++) batches.push(shuffled(records, seed + 1 + b).slice(0, size));
  return shuffled(batches, seed + 7919);
}
