import { addOtlpRefusals, type RefusalCount } from "../db/otlp-refusals";
import { ApiError } from "../http/api-error";
import type { SpanRejection } from "./normalise-spans";

// What /v1/traces refused, kept by hour and code for the coverage page (issue 43): a reporter whose spans are
// refused shows where its calls are counted. Best effort: the export's answer never waits on a failed count.

/** An answered export's rejected spans, by code. */
export async function keepRefusals(rejected: readonly SpanRejection[]): Promise<void> {
  const spans = new Map<string, number>();
  for (const { code } of rejected) spans.set(code, (spans.get(code) ?? 0) + 1);
  await keep([...spans].map(([code, n]) => ({ code, spans: n, exports: 1 })));
}

/** An export refused whole for what was sent (a 4xx): its code, no span counted (none was read). */
export async function keepRefusedExport(error: unknown): Promise<void> {
  if (!(error instanceof ApiError) || error.status >= 500) return;
  await keep([{ code: error.code, spans: 0, exports: 1 }]);
}

async function keep(counts: RefusalCount[]): Promise<void> {
  try {
    await addOtlpRefusals(new Date(), counts);
  } catch (error) {
    console.error(
      "receipt: OTLP refusals not counted:",
      error instanceof Error ? error.name : "unknown error",
    );
  }
}
