import { isAddressableId } from "../contract/limits";
import { ID_PATTERN, SCHEMA_HASH_PATTERN, VERSION_PATTERN } from "../contract/record";
import type { OtlpAttributes, OtlpSpan, OtlpValue } from "./span";

/** A span that cannot be mapped, or an attribute of it that was ignored (never its value). */
export type MappingProblem = { spanId: string; traceId: string; code: string; message: string };

export const PROBLEM_CODES = {
  /** A `receipt.*` attribute whose value does not fit its record field: the span is mapped without it. */
  invalidAttribute: "invalid_attribute",
  /** A tools/call client span naming no tool (no `gen_ai.tool.name`, no target in its name): no chain. */
  missingToolName: "missing_tool_name",
  /** A span whose start time is not Unix nanoseconds within years 0001–9999: not mapped. */
  invalidTime: "invalid_time",
  /**
   * A call whose receipt span cannot be told from another call's (calls of one tool at once, under spans that are
   * not their ancestors), or whose receipt span receipts other calls too: the call is mapped without that span's
   * call evidence.
   */
  ambiguousReceipt: "ambiguous_receipt",
  /** A peer name or version (or a protocol version) that looked like a credential or held a control character: dropped, the span kept; or a peer name or version past the record's length: cut to it. */
  maskedAttribute: "masked_attribute",
} as const;

/** Turns an attribute value into a record field's value, or `undefined` when it does not fit. */
export type Parse<T> = (value: OtlpValue) => T | undefined;

/** One place where evidence can be read: a span's attributes, or one of its events'. */
export type Source = { span: OtlpSpan; attributes: OtlpAttributes };

/**
 * Reads evidence from sources in priority order (the first that has a valid value wins) and records a problem
 * for each value that is present but does not fit, so the sender learns which attribute was ignored.
 */
export class EvidenceReader {
  readonly problems: MappingProblem[] = [];

  pick<T>(sources: readonly Source[], key: string, parse: Parse<T>, expected: string): T | undefined {
    for (const source of sources) {
      const value = this.read(source, key, parse, expected);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  read<T>(source: Source, key: string, parse: Parse<T>, expected: string): T | undefined {
    const raw = source.attributes[key];
    if (raw === undefined) return undefined;
    const parsed = parse(raw);
    if (parsed === undefined)
      this.report(source.span, PROBLEM_CODES.invalidAttribute, `${key} ignored: ${expected}`);
    return parsed;
  }

  report(span: OtlpSpan, code: string, message: string): void {
    this.problems.push({ spanId: span.spanId, traceId: span.traceId, code, message });
  }
}

export const parseText =
  (max: number): Parse<string> =>
  (value) =>
    typeof value === "string" && value.length > 0 && value.length <= max ? value : undefined;

export const parseId: Parse<string> = (value) =>
  typeof value === "string" && ID_PATTERN.test(value) && isAddressableId(value) ? value : undefined;

export const parseVersion: Parse<string> = (value) =>
  typeof value === "string" && VERSION_PATTERN.test(value) ? value : undefined;

export const parseVersions: Parse<string[]> = (value) => {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.every((item) => typeof item === "string" && VERSION_PATTERN.test(item))
    ? (list as string[])
    : undefined;
};

export const parseStrings: Parse<string[]> = (value) => {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list)) return undefined;
  return list.every((item) => typeof item === "string") ? (list as string[]) : undefined;
};

export const parseSchemaHash: Parse<string> = (value) =>
  typeof value === "string" && SCHEMA_HASH_PATTERN.test(value) ? value : undefined;

export const parseBool: Parse<boolean> = (value) => (typeof value === "boolean" ? value : undefined);

export const parseNumber: Parse<number> = (value) =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/** An integer in [min, max], sent as an int or a decimal string. */
export const parseInteger =
  (min: number, max: number): Parse<number> =>
  (value) => {
    const number = typeof value === "string" && /^-?\d{1,16}$/.test(value) ? Number(value) : value;
    return typeof number === "number" && Number.isSafeInteger(number) && number >= min && number <= max
      ? number
      : undefined;
  };

/** A JSON-RPC id or progress token: a non-empty string or an integer. */
export const parseJsonRpcId: Parse<string | number> = (value) => {
  if (typeof value === "string" && value.length > 0 && value.length <= 256) return value;
  return typeof value === "number" && Number.isSafeInteger(value) ? value : undefined;
};

/** Enum parsers and their messages are made once per list (they are asked for on every record). */
const enumParsers = new WeakMap<readonly string[], Parse<string>>();
const enumMessages = new WeakMap<readonly string[], string>();

export function parseEnum<T extends string>(values: readonly T[]): Parse<T> {
  let parse = enumParsers.get(values);
  if (parse === undefined) {
    const allowed: ReadonlySet<string> = new Set(values);
    parse = (value) => (typeof value === "string" && allowed.has(value) ? value : undefined);
    enumParsers.set(values, parse);
  }
  return parse as Parse<T>;
}

export function expectedOneOf(values: readonly string[]): string {
  let message = enumMessages.get(values);
  if (message === undefined) {
    message = `expected one of ${values.join(", ")}`;
    enumMessages.set(values, message);
  }
  return message;
}
