import { errorClass } from "../collector/errors";
import type { CallTask, EffectEvidence, OutcomeEvidence, ProgressEntry, Verifier } from "../contract/record";
import { RECEIPT, RECEIPT_EVENTS } from "./attribute-names";
import {
  type EvidenceReader,
  expectedOneOf,
  parseBool,
  parseEnum,
  parseId,
  parseInteger,
  parseJsonRpcId,
  parseNumber,
  parseText,
  type Source,
} from "./evidence-reader";
import { eventMs, isoOf } from "./mapped-span";
import { endMs, nanosToMs } from "./span-values";

const EFFECT_STATUSES = ["committed", "absent", "unknown"] as const;
const VERIFIERS = ["file_hash", "db_row", "http_status", "test", "llm_judge", "other"] as const;
const VERDICTS = ["pass", "fail", "unavailable"] as const;
const TASK_STATUSES = ["working", "input_required", "completed", "failed", "cancelled"] as const;
const JSON_RPC_CODE = parseInteger(-2_147_483_648, 2_147_483_647);

export type ReceiptEventEvidence = {
  progress: ProgressEntry[];
  cancelledMs: number[];
  task?: CallTask;
  effect?: EffectEvidence;
  outcome?: OutcomeEvidence;
};

/** One piece of evidence with its time: an event (its time), or attributes on a source span (its end, else start). */
type Timed = { source: Source; ms: number };

/**
 * The time-stamped evidence of a call, from Receipt's events on its receipt sources, and effect/outcome also as
 * attributes on a source span. Progress keeps arrival (time) order; task, effect and outcome take the latest.
 */
export function receiptEventEvidence(
  reader: EvidenceReader,
  sources: readonly Source[],
): ReceiptEventEvidence {
  const byName = (name: string): Timed[] => {
    const found: Timed[] = [];
    for (const { span } of sources) {
      for (const event of span.events) {
        const ms = event.name === name ? eventMs(event) : undefined;
        if (ms !== undefined) found.push({ source: { span, attributes: event.attributes }, ms });
      }
    }
    return found.sort((a, b) => a.ms - b.ms);
  };
  const asAttributes = (key: string): Timed[] =>
    sources
      .filter((source) => source.attributes[key] !== undefined)
      .map((source) => ({ source, ms: endMs(source.span) ?? nanosToMs(source.span.startTimeUnixNano) ?? 0 }));

  const evidence: ReceiptEventEvidence = {
    progress: byName(RECEIPT_EVENTS.progress)
      .map((timed) => progressEntry(reader, timed))
      .filter((entry): entry is ProgressEntry => entry !== undefined),
    cancelledMs: byName(RECEIPT_EVENTS.cancelled).map((timed) => timed.ms),
  };
  const task = latest(byName(RECEIPT_EVENTS.task), (timed) => taskOf(reader, timed));
  if (task !== undefined) evidence.task = task;
  const effects = [...byName(RECEIPT_EVENTS.effect), ...asAttributes(RECEIPT.effectStatus)];
  const effect = latest(effects, (timed) => effectOf(reader, timed));
  if (effect !== undefined) evidence.effect = effect;
  const outcomes = [...byName(RECEIPT_EVENTS.outcome), ...asAttributes(RECEIPT.outcomeVerdict)];
  const outcome = latest(outcomes, (timed) => outcomeOf(reader, timed));
  if (outcome !== undefined) evidence.outcome = outcome;
  return evidence;
}

/** The latest valid piece (ties: the later in source order), so the same spans always give the same answer. */
function latest<T>(timed: Timed[], read: (timed: Timed) => T | undefined): T | undefined {
  const ordered = timed
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => b.entry.ms - a.entry.ms || b.index - a.index);
  for (const { entry } of ordered) {
    const value = read(entry);
    if (value !== undefined) return value;
  }
  return undefined;
}

function progressEntry(reader: EvidenceReader, { source, ms }: Timed): ProgressEntry | undefined {
  const token = reader.read(
    source,
    RECEIPT.progressEventToken,
    parseJsonRpcId,
    "expected a string or an integer",
  );
  const progress = reader.read(source, RECEIPT.progressValue, parseNumber, "expected a number");
  if (token === undefined || progress === undefined) return undefined;
  const entry: ProgressEntry = { at: isoOf(ms), token, progress };
  const total = reader.read(source, RECEIPT.progressTotal, parseNumber, "expected a number");
  if (total !== undefined) entry.total = total;
  return entry;
}

function taskOf(reader: EvidenceReader, { source, ms }: Timed): CallTask | undefined {
  const id = reader.read(source, RECEIPT.taskId, parseId, "expected 1-128 characters of A-Z a-z 0-9 . _ : -");
  const status = reader.read(
    source,
    RECEIPT.taskStatus,
    parseEnum(TASK_STATUSES),
    expectedOneOf(TASK_STATUSES),
  );
  if (id === undefined || status === undefined) return undefined;
  const task: CallTask = { id, status, updatedAt: isoOf(ms) };
  const isError = reader.read(source, RECEIPT.taskResultIsError, parseBool, "expected a boolean");
  if (status === "completed" && isError !== undefined) task.result = { isError };
  const code = reader.read(source, RECEIPT.taskErrorCode, JSON_RPC_CODE, "expected an integer");
  if (status === "failed" && code !== undefined) task.error = { code, class: errorClass(code) };
  return task;
}

function effectOf(reader: EvidenceReader, { source, ms }: Timed): EffectEvidence | undefined {
  const status = reader.read(
    source,
    RECEIPT.effectStatus,
    parseEnum(EFFECT_STATUSES),
    expectedOneOf(EFFECT_STATUSES),
  );
  if (status === undefined) return undefined;
  const effect: EffectEvidence = { checkedAt: isoOf(ms), status };
  const receipt = reader.read(source, RECEIPT.effectReceipt, parseText(256), "expected 1-256 characters");
  if (receipt !== undefined) effect.receipt = receipt;
  return effect;
}

function outcomeOf(reader: EvidenceReader, { source, ms }: Timed): OutcomeEvidence | undefined {
  const verdict = reader.read(source, RECEIPT.outcomeVerdict, parseEnum(VERDICTS), expectedOneOf(VERDICTS));
  const verifier = reader.read(
    source,
    RECEIPT.outcomeVerifier,
    parseEnum<Verifier>(VERIFIERS),
    expectedOneOf(VERIFIERS),
  );
  if (verdict === undefined) return undefined;
  const outcome: OutcomeEvidence = { checkedAt: isoOf(ms), verifier: verifier ?? "other", verdict };
  const receipt = reader.read(source, RECEIPT.outcomeReceipt, parseText(256), "expected 1-256 characters");
  if (receipt !== undefined) outcome.receipt = receipt;
  return outcome;
}
