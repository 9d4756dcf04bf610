export { RECEIPT, RECEIPT_EVENTS, SEMCONV, TRACELOOP } from "./attribute-names";
export { buildRecords } from "./build-records";
export { DEFAULT_DEADLINE_MS } from "./call-evidence";
export { type MappingProblem, PROBLEM_CODES } from "./evidence-reader";
export { redactSpan } from "./redact";
export { UNREPORTED, UNREPORTED_SCHEMA_HASH, UNREPORTED_VERSION } from "./session-evidence";
export { sessionKeyOf } from "./session-key";
export { mappingPasses, type RoledSpan, type SpanRole, spanRoleOf } from "./span-role";
export type * from "./span";
