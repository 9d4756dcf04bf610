import type { IngestAnswer } from "@/lib/dashboard/api-types";
import { type SavedRecord, saveRecords } from "./store-records";
import { ApiError } from "../http/api-error";
import { countBy, metrics } from "../metrics/registry";
import { prepareRecords } from "./prepare-records";
import { readBatch } from "./read-batch";

/** POST /api/v1/records: read, validate every record, classify, store atomically, answer per record in order. */
export async function ingestRequest(request: Request) {
  const started = performance.now();
  let received = 0;
  try {
    const inputs = await readBatch(request);
    received = inputs.length;
    const prepared = await prepareRecords(inputs);
    const saved = await saveRecords(prepared);
    countIngested(saved, performance.now() - started);
    return answer(saved);
  } catch (error) {
    countRefused(error, received, performance.now() - started);
    throw error;
  }
}

// Counted once per batch (a handful of increments), so a 1000-record batch pays for one pass over its results.
function countIngested(saved: SavedRecord[], elapsedMs: number) {
  const m = metrics();
  const stored = saved.filter((item) => !item.duplicate);
  m.recordsIngested.inc({ outcome: "stored" }, stored.length);
  m.recordsIngested.inc({ outcome: "duplicate" }, saved.length - stored.length);
  countBy(
    m.chainsClassified,
    "state",
    stored.map((item) => item.classification.state),
    { cause: "record" },
  );
  m.ingestBatches.inc({ outcome: "accepted" });
  m.ingestDuration.observe({ outcome: "accepted" }, elapsedMs / 1000);
}

function countRefused(error: unknown, records: number, elapsedMs: number) {
  const m = metrics();
  m.recordsIngested.inc({ outcome: "rejected" }, records);
  m.ingestBatches.inc({ outcome: error instanceof ApiError ? error.code : "internal_error" });
  m.ingestDuration.observe({ outcome: "refused" }, elapsedMs / 1000);
}

function answer(saved: SavedRecord[]): IngestAnswer {
  return {
    results: saved.map(({ recordId, chainId, duplicate, classification }) => ({
      recordId,
      chainId,
      state: classification.state,
      layer: classification.layer,
      reasons: classification.reasons,
      retrySafe: classification.retrySafe ?? null,
      shadowed: classification.shadowed ?? null,
      evidence: classification.evidence ?? null,
      nextCheckAt: classification.nextCheckAt ?? null,
      duplicate,
    })),
  };
}
