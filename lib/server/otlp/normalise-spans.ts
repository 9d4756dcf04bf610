import type {
  OtlpAttributes,
  OtlpEvent,
  OtlpScalar,
  OtlpSpan,
  OtlpSpanKind,
  OtlpStatusCode,
  OtlpValue,
} from "@/lib/otlp/span";
import { ApiError } from "../http/api-error";

/** A span of the export refused before storage, with the JSON path of what was wrong. */
export type SpanRejection = {
  traceId?: string;
  spanId?: string;
  path: string;
  code: string;
  message: string;
};

export type NormalisedExport = {
  spans: OtlpSpan[];
  /** Where each of `spans` is in the request, by index (`$.resourceSpans[0].scopeSpans[0].spans[3]`). */
  paths: string[];
  rejected: SpanRejection[];
};

/**
 * Turns an ExportTraceServiceRequest — decoded from protobuf (ids as bytes, int64 as decimal strings) or parsed
 * from OTLP/JSON (ids as hex, int64 as strings or numbers, enums as integers) — into `OtlpSpan`s. An envelope that
 * is not the request's shape is a 400 for the whole export; a span (or a resource, or a scope) whose own fields
 * are not OTLP's is rejected alone, so the others are kept (partial success).
 */
export function normaliseExport(request: unknown): NormalisedExport {
  const steps = normaliseSteps(request);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/** `normaliseExport` that lets the event loop run every `spansBetweenYields` spans. */
export async function normaliseExportInSteps(
  request: unknown,
  yieldToEventLoop: () => Promise<unknown>,
  spansBetweenYields: number,
): Promise<NormalisedExport> {
  const steps = normaliseSteps(request);
  let step = steps.next();
  for (let spans = 1; !step.done; spans++) {
    if (spans % spansBetweenYields === 0) await yieldToEventLoop();
    step = steps.next();
  }
  return step.value;
}

function* normaliseSteps(request: unknown): Generator<void, NormalisedExport> {
  const spans: OtlpSpan[] = [];
  const paths: string[] = [];
  const rejected: SpanRejection[] = [];
  const resourceSpans = field(request, "resourceSpans", "$");
  for (const [r, resourceEntry] of resourceSpans.entries()) {
    const resourcePath = `$.resourceSpans[${r}]`;
    const scopeSpans = field(resourceEntry, "scopeSpans", resourcePath);
    for (const [s, scopeEntry] of scopeSpans.entries()) {
      const scopePath = `${resourcePath}.scopeSpans[${s}]`;
      const rawSpans = field(scopeEntry, "spans", scopePath);
      let context: { resource: OtlpAttributes; scope: OtlpSpan["scope"] };
      try {
        context = {
          resource: attributesOf(objectAt(resourceEntry, "resource"), `${resourcePath}.resource.attributes`),
          scope: scopeOf(objectAt(scopeEntry, "scope"), `${scopePath}.scope`),
        };
      } catch (error) {
        if (!(error instanceof SpanError)) throw error;
        for (const _ of rawSpans)
          rejected.push({ path: error.path, code: error.code, message: error.message });
        continue;
      }
      for (const [k, raw] of rawSpans.entries()) {
        const path = `${scopePath}.spans[${k}]`;
        try {
          spans.push(spanOf(raw, path, context));
          paths.push(path);
        } catch (error) {
          if (!(error instanceof SpanError)) throw error;
          rejected.push({ ...idsOf(raw), path: error.path, code: error.code, message: error.message });
        }
        yield;
      }
    }
  }
  return { spans, paths, rejected };
}

class SpanError extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);

/** A repeated field of the envelope: absent is empty; anything but an array of objects refuses the export. */
function field(parent: unknown, name: string, path: string): unknown[] {
  if (!isObject(parent)) throw invalidExport(path, "expected an object");
  const value = parent[name];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidExport(`${path}.${name}`, "expected an array");
  return value;
}

function invalidExport(path: string, message: string) {
  return new ApiError(400, "invalid_otlp", `the body is not an OTLP ExportTraceServiceRequest: ${message}`, [
    { path, code: "invalid_otlp", message },
  ]);
}

function objectAt(parent: unknown, name: string): Record<string, unknown> {
  const value = isObject(parent) ? parent[name] : undefined;
  return isObject(value) ? value : {};
}

function spanOf(raw: unknown, path: string, context: Pick<OtlpSpan, "resource" | "scope">): OtlpSpan {
  if (!isObject(raw)) throw new SpanError(path, "invalid_span", "expected a span object");
  const traceId = idOf(raw.traceId, 16, `${path}.traceId`);
  const spanId = idOf(raw.spanId, 8, `${path}.spanId`);
  const parent = raw.parentSpanId;
  const emptyParent = parent === undefined || parent === null || parent === "" || isEmptyBytes(parent);
  const status = isObject(raw.status) ? raw.status : {};
  const message = optionalText(status.message, `${path}.status.message`);
  const events = raw.events ?? [];
  if (!Array.isArray(events)) throw new SpanError(`${path}.events`, "invalid_span", "expected an array");
  return {
    traceId,
    spanId,
    ...(!emptyParent && { parentSpanId: idOf(parent, 8, `${path}.parentSpanId`) }),
    name: optionalText(raw.name, `${path}.name`) ?? "",
    kind: enumOf(raw.kind, SPAN_KINDS, "SPAN_KIND_", `${path}.kind`),
    startTimeUnixNano: nanosOf(raw.startTimeUnixNano, `${path}.startTimeUnixNano`),
    endTimeUnixNano: nanosOf(raw.endTimeUnixNano, `${path}.endTimeUnixNano`),
    status: {
      code: enumOf(status.code, STATUS_CODES, "STATUS_CODE_", `${path}.status.code`),
      ...(message && { message }),
    },
    attributes: attributesOf(raw, `${path}.attributes`),
    events: events.map((event, i) => eventOf(event, `${path}.events[${i}]`)),
    ...context,
  };
}

function eventOf(raw: unknown, path: string): OtlpEvent {
  if (!isObject(raw)) throw new SpanError(path, "invalid_span", "expected an event object");
  return {
    name: optionalText(raw.name, `${path}.name`) ?? "",
    timeUnixNano: nanosOf(raw.timeUnixNano, `${path}.timeUnixNano`),
    attributes: attributesOf(raw, `${path}.attributes`),
  };
}

function scopeOf(raw: Record<string, unknown>, path: string): OtlpSpan["scope"] {
  const version = optionalText(raw.version, `${path}.version`);
  return { name: optionalText(raw.name, `${path}.name`) ?? "", ...(version && { version }) };
}

const SPAN_KINDS: OtlpSpanKind[] = ["unspecified", "internal", "server", "client", "producer", "consumer"];
const STATUS_CODES: OtlpStatusCode[] = ["unset", "ok", "error"];

/** An enum as an integer (OTLP/JSON and protobuf), or by its proto name (`SPAN_KIND_CLIENT`), which some send. */
function enumOf<T extends string>(raw: unknown, names: T[], prefix: string, path: string): T {
  if (raw === undefined || raw === null) return names[0] as T;
  const byName =
    typeof raw === "string" ? names.find((name) => `${prefix}${name.toUpperCase()}` === raw) : undefined;
  const value = byName ?? (typeof raw === "number" && Number.isInteger(raw) ? names[raw] : undefined);
  if (value === undefined) throw new SpanError(path, "invalid_enum", "not a known enum value");
  return value;
}

const HEX_ID = /^[0-9a-fA-F]+$/;

function idOf(raw: unknown, bytes: number, path: string): string {
  const hex =
    raw instanceof Uint8Array
      ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("hex")
      : typeof raw === "string" && HEX_ID.test(raw)
        ? raw.toLowerCase()
        : undefined;
  if (hex === undefined || hex.length !== bytes * 2 || /^0+$/.test(hex)) {
    throw new SpanError(
      path,
      "invalid_id",
      `expected a non-zero id of ${bytes} bytes (${bytes * 2} hex digits)`,
    );
  }
  return hex;
}

const isEmptyBytes = (value: unknown) => value instanceof Uint8Array && value.byteLength === 0;

const UINT64_MAX = 18_446_744_073_709_551_615n;

/** A fixed64 time in Unix nanoseconds, kept as a decimal string (a JS number loses nanoseconds). */
function nanosOf(raw: unknown, path: string): string {
  if (raw === undefined || raw === null) return "0";
  // A JSON number past 2^53 was rounded by JSON.parse already; OTLP/JSON exporters send int64 as strings.
  const text = typeof raw === "number" && Number.isInteger(raw) && raw >= 0 ? BigInt(raw).toString() : raw;
  if (typeof text !== "string" || !/^\d{1,20}$/.test(text) || BigInt(text) > UINT64_MAX) {
    throw new SpanError(path, "invalid_time", "expected Unix nanoseconds as an unsigned 64-bit integer");
  }
  return BigInt(text).toString();
}

function optionalText(raw: unknown, path: string): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "string") throw new SpanError(path, "invalid_type", "expected a string");
  return raw;
}

/**
 * `attributes` of a span, event or resource: KeyValue pairs. A value OtlpSpan cannot hold (bytes, kvlist, an empty
 * AnyValue) is left out; a value that is not an AnyValue at all rejects the span. Keys come out sorted, so the same
 * attributes sent in another order make the same span text (what duplicates are recognised by); the last of a
 * repeated key wins.
 */
function attributesOf(parent: Record<string, unknown>, path: string): OtlpAttributes {
  const list = parent.attributes ?? [];
  if (!Array.isArray(list)) throw new SpanError(path, "invalid_attribute", "expected an array of KeyValue");
  const byKey = new Map<string, OtlpValue>();
  for (const [i, entry] of list.entries()) {
    if (!isObject(entry) || typeof entry.key !== "string") {
      throw new SpanError(`${path}[${i}]`, "invalid_attribute", "expected a KeyValue with a string key");
    }
    const value = anyValueOf(entry.value, `${path}[${i}].value`);
    if (value !== undefined) byKey.set(entry.key, value);
    else byKey.delete(entry.key);
  }
  return Object.fromEntries([...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function anyValueOf(raw: unknown, path: string): OtlpValue | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw new SpanError(path, "invalid_attribute", "expected an AnyValue object");
  if (raw.arrayValue !== undefined && raw.arrayValue !== null) {
    const values = isObject(raw.arrayValue) ? (raw.arrayValue.values ?? []) : undefined;
    if (!Array.isArray(values)) throw new SpanError(path, "invalid_attribute", "expected arrayValue.values");
    return values.flatMap((item, i) => {
      const scalar = scalarOf(item, `${path}.arrayValue.values[${i}]`);
      return scalar === undefined ? [] : [scalar];
    });
  }
  return scalarOf(raw, path);
}

function scalarOf(raw: unknown, path: string): OtlpScalar | undefined {
  if (!isObject(raw)) throw new SpanError(path, "invalid_attribute", "expected an AnyValue object");
  const bad = (message: string) => new SpanError(path, "invalid_attribute", message);
  if ("stringValue" in raw && raw.stringValue != null) {
    if (typeof raw.stringValue !== "string") throw bad("stringValue must be a string");
    return raw.stringValue;
  }
  if ("boolValue" in raw && raw.boolValue != null) {
    if (typeof raw.boolValue !== "boolean") throw bad("boolValue must be a boolean");
    return raw.boolValue;
  }
  if ("intValue" in raw && raw.intValue != null) return intOf(raw.intValue, bad);
  if ("doubleValue" in raw && raw.doubleValue != null) {
    if (typeof raw.doubleValue !== "number" || !Number.isFinite(raw.doubleValue)) {
      throw bad("doubleValue must be a finite number");
    }
    return raw.doubleValue;
  }
  return undefined; // bytesValue, kvlistValue, nested arrays, or an empty AnyValue: nothing the span model holds
}

const INT64_MIN = -9_223_372_036_854_775_808n;
const INT64_MAX = 9_223_372_036_854_775_807n;

/** An int64: a number when it is exact as one, else its decimal string (no precision is lost either way). */
function intOf(raw: unknown, bad: (message: string) => SpanError): OtlpScalar {
  if (typeof raw === "number" && Number.isInteger(raw) && Math.abs(raw) <= 2 ** 63) return raw;
  if (typeof raw !== "string" || !/^-?\d{1,19}$/.test(raw)) throw bad("intValue must be a 64-bit integer");
  const value = BigInt(raw);
  if (value < INT64_MIN || value > INT64_MAX) throw bad("intValue must be a 64-bit integer");
  return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
}

/** The ids of a span that could not be normalised, when they can be read, so a rejection names it. */
function idsOf(raw: unknown): { traceId?: string; spanId?: string } {
  if (!isObject(raw)) return {};
  const read = (value: unknown, bytes: number) => {
    try {
      return idOf(value, bytes, "");
    } catch {
      return undefined;
    }
  };
  const traceId = read(raw.traceId, 16);
  const spanId = read(raw.spanId, 8);
  return { ...(traceId && { traceId }), ...(spanId && { spanId }) };
}
