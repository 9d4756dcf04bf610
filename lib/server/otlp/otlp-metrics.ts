import { ApiError } from "../http/api-error";
import { countBy, metrics } from "../metrics/registry";
import type { SpanRejection } from "./normalise-spans";

// The OTLP receiver's counters on /metrics (issue 43): how many exports and spans arrived and what became of them,
// so a collector or an SDK whose spans are refused shows on a dashboard before anyone reads its logs.

/**
 * One export answered: its spans by outcome, its rejections by code, and its warnings (a stored span used without
 * one value: `invalid_attribute`, `ambiguous_receipt`, `masked_attribute`) by code, as outcome `warning`.
 */
export function countExport(result: {
  rejected: readonly SpanRejection[];
  warnings: readonly SpanRejection[];
  spans: { stored: number; duplicate: number };
}): void {
  const m = metrics();
  m.otlpExports.inc({ outcome: result.rejected.length > 0 ? "partial" : "accepted" });
  m.otlpSpans.inc({ outcome: "stored", code: "" }, result.spans.stored);
  m.otlpSpans.inc({ outcome: "duplicate", code: "" }, result.spans.duplicate);
  countBy(
    m.otlpSpans,
    "code",
    result.rejected.map((rejection) => rejection.code),
    { outcome: "rejected" },
  );
  countBy(
    m.otlpSpans,
    "code",
    result.warnings.map((warning) => warning.code),
    { outcome: "warning" },
  );
}

/** One export refused whole (unreadable, too large, database down): its code, as the answer names it. */
export function countRefusedExport(error: unknown): void {
  metrics().otlpExports.inc({ outcome: error instanceof ApiError ? error.code : "internal_error" });
}
