import { isRetryable, retryAfterMs } from "./retry";
import type { QueuedRecord } from "./send-queue";
import type { DeliveryFailure, DeliveryResult, RecordIssue } from "./types";

/** One problem in Receipt's error body: `issues[]` of `{ error: { code, message, issues } }`. */
type ApiIssue = { index?: number; path?: string; code?: string };
export type Refusal = { kind: "refused"; status: number; code?: string; issues: ApiIssue[] };
export type Outcome =
  | { kind: "delivered"; results: DeliveryResult[] }
  | Refusal
  | { kind: "retry"; status?: number; retryAfter?: number };

/** One POST of a batch to `POST /api/v1/records`, read into what the sink does next. Never throws. */
export async function postBatch(
  endpoint: string,
  batch: readonly QueuedRecord[],
  options: { ingestionKey: string; fetch: typeof fetch; signal: AbortSignal },
): Promise<Outcome> {
  try {
    const response = await options.fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${options.ingestionKey}` },
      // Each record was serialised once, when it was queued.
      body: `{"records":[${batch.map((entry) => entry.json).join(",")}]}`,
      signal: options.signal,
    });
    const payload = (await response.json().catch(() => undefined)) as
      | { results?: DeliveryResult[]; error?: { code?: unknown; issues?: unknown } }
      | undefined;
    const status = response.status;
    if (response.ok)
      return { kind: "delivered", results: Array.isArray(payload?.results) ? payload.results : [] };
    if (isRetryable(status))
      return { kind: "retry", status, retryAfter: retryAfterMs(response.headers.get("retry-after")) };
    const code = typeof payload?.error?.code === "string" ? payload.error.code : undefined;
    const issues = Array.isArray(payload?.error?.issues) ? (payload.error.issues as ApiIssue[]) : [];
    return { kind: "refused", status, code, issues };
  } catch {
    return { kind: "retry" }; // network error, timeout or an abandoned POST
  }
}

/**
 * What a 4xx means for its batch. When the server named the records at fault (422 `issues[].index`, 409 conflicts),
 * only those are rejected and the others go again at once; otherwise the whole batch is rejected.
 */
export function readRefusal(
  batch: readonly QueuedRecord[],
  refusal: Refusal,
): { rejected: DeliveryFailure[]; sendAgain: QueuedRecord[] } {
  const { status, code } = refusal;
  const faulty = faultyRecords(batch.length, refusal);
  if ((status === 422 || status === 409) && faulty.size > 0 && faulty.size < batch.length) {
    return {
      rejected: [...faulty].map(([index, issues]) => ({
        kind: "rejected",
        recordIds: [(batch[index] as QueuedRecord).recordId],
        count: 1,
        status,
        code,
        issues,
        attempts: 1,
      })),
      sendAgain: batch.filter((_, index) => !faulty.has(index)),
    };
  }
  const issues = [...faulty.values()].flat();
  const whole: DeliveryFailure = {
    kind: "rejected",
    recordIds: batch.map((entry) => entry.recordId),
    count: batch.length,
    status,
    code,
    ...(issues.length > 0 ? { issues } : {}),
    attempts: 1,
  };
  return { rejected: [whole], sendAgain: [] };
}

/** The batch positions Receipt named in its issues (`index`), each with its paths and codes. */
function faultyRecords(batchSize: number, refusal: Refusal): Map<number, RecordIssue[]> {
  const faulty = new Map<number, RecordIssue[]>();
  for (const issue of refusal.issues)
    if (
      Number.isInteger(issue.index) &&
      (issue.index as number) >= 0 &&
      (issue.index as number) < batchSize
    ) {
      const index = issue.index as number;
      const list = faulty.get(index) ?? [];
      list.push({ path: issue.path ?? "$", code: issue.code ?? refusal.code ?? "rejected" });
      faulty.set(index, list);
    }
  return faulty;
}
