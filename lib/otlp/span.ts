// lib/otlp/span.ts — one OTLP span after decoding, normalised (ids lowercase hex, times as decimal strings of
// Unix nanoseconds so that no precision is lost), before redaction.
export type OtlpScalar = string | number | boolean;
export type OtlpValue = OtlpScalar | OtlpScalar[];
export type OtlpAttributes = Record<string, OtlpValue>;

export type OtlpSpanKind = "unspecified" | "internal" | "server" | "client" | "producer" | "consumer";
export type OtlpStatusCode = "unset" | "ok" | "error";

export type OtlpEvent = { name: string; timeUnixNano: string; attributes: OtlpAttributes };

export type OtlpSpan = {
  traceId: string; // 32 lowercase hex
  spanId: string; // 16 lowercase hex
  parentSpanId?: string;
  name: string;
  kind: OtlpSpanKind;
  startTimeUnixNano: string;
  endTimeUnixNano: string; // "0" when the span has no end
  status: { code: OtlpStatusCode; message?: string };
  attributes: OtlpAttributes;
  events: OtlpEvent[];
  resource: OtlpAttributes; // the span's resource attributes (service.name, telemetry.sdk.language…)
  scope: { name: string; version?: string };
};
