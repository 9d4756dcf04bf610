import { saveRecords } from "../db/records";
import { prepareRecords } from "./prepare-records";
import { readBatch } from "./read-batch";

/** POST /api/v1/records: read, validate every record, classify, store atomically, answer per record in order. */
export async function ingestRequest(request: Request) {
  const inputs = await readBatch(request);
  const prepared = await prepareRecords(inputs);
  const saved = await saveRecords(prepared);
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
