/** Builds OTLP records, validates them as the native path does, and classifies them with the real classifier. */
import { expect } from "vitest";
import { type Classification, classify } from "@/lib/classifier";
import { type HealthRecord, validateRecord } from "@/lib/contract";
import { buildRecords, type OtlpSpan } from "@/lib/otlp";

export type ClassifiedChain = { record: HealthRecord; result: Classification };

/** Builds, validates through the contract as the native path does, and classifies with the real classifier. */
export function classified(spans: OtlpSpan[]): ClassifiedChain[] {
  const { records, problems } = buildRecords(spans);
  expect(problems).toEqual([]);
  return records.map((raw) => {
    const validation = validateRecord(raw);
    if (!validation.ok) throw new Error(`record refused: ${JSON.stringify(validation.issues)}`);
    return { record: validation.record, result: classify(validation.record) };
  });
}

/** The same span, later by `ms` (start, end). */
export function shifted(one: OtlpSpan, ms: number): OtlpSpan {
  const later = (nanos: string) => (BigInt(nanos) + BigInt(ms) * BigInt(1_000_000)).toString();
  return {
    ...one,
    startTimeUnixNano: later(one.startTimeUnixNano),
    endTimeUnixNano: later(one.endTimeUnixNano),
  };
}

export function onlyChain(spans: OtlpSpan[]): ClassifiedChain {
  const chains = classified(spans);
  expect(chains).toHaveLength(1);
  return chains[0] as ClassifiedChain;
}
