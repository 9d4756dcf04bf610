/**
 * Receipt collector: wraps the MCP TypeScript SDK client and turns what crosses the wire into
 * redacted health records (contract v1). See README.md in this folder for a ten-line example.
 * This entry names no SDK type (structural types only); `./v1.ts` and `./v2.ts` add each SDK's exact types.
 */
export type { CallReport, CallToolOptions } from "./call";
export { capabilityPaths, TASKS_EXTENSION } from "../../../lib/contract/capabilities";
export {
  type Collector,
  type CollectorCallOptions,
  type CollectorOptions,
  type ConnectOptions,
  type ConnectV2Options,
  createCollector,
} from "./collector";
export {
  CallDeadlineError,
  CallInactivityError,
  CallStoppedError,
  errorClass,
  RetryRefusedError,
  SessionFailedError,
} from "./errors";
export type { EffectCheck, EffectHook, HookInput, OutcomeCheck, OutcomeHook, OutcomeVerifier } from "./hooks";
export { type AuthObserver, challengeCapturingFetch, parseChallenge } from "./http-auth";
export type { CollectorRecord } from "./record-types";
export type {
  ClientCapabilitiesLike,
  FetchLike,
  StreamableHttpOptionsLike,
  ToolResult,
  TransportLike,
  V2ClientLike,
  V2ClientOptionsLike,
} from "./sdk/structural";
export type { V1ClientLike } from "./sdk/v1";
export { MODERN_PROTOCOL_VERSION } from "./sdk/v2";
export {
  GUARD_LABEL,
  OperationAlreadyCommittedError,
  OperationGuardRejectedError,
  OperationGuardUnreachableError,
  type OperationGuardOptions,
  OperationInDoubtError,
  OperationInProgressError,
} from "./operation-guard";
export { MemorySink } from "./sinks/memory-sink";
export { ReceiptSink, type ReceiptSinkOptions } from "./sinks/receipt-sink";
export { type GuardedRecord, guardRecord, MASKED_VALUE } from "./sinks/record-guard";
export { REPAIR_CODES, REPLACEMENT_CHARACTER } from "./sinks/text-repair";
export {
  type DeliveryCounts,
  type DeliveryFailure,
  DeliveryError,
  type DeliveryReport,
  type FlushOptions,
  type MaskedField,
  type RecordIssue,
  type RecordSink,
} from "./sinks/types";
export { fileEffect, fileHashVerifier, type HttpStatusOptions, httpStatusVerifier } from "./verifiers";
