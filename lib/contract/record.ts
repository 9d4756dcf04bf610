/**
 * Health record v1 (contract §1) as a zod schema.
 *
 * Strict at every level: an unknown field is an error, not something to strip, because
 * rejecting it is what keeps arguments, prompts, tool output and tokens out of storage.
 * Optional fields accept `null` as well as absence ("no evidence" either way);
 * `validateRecord` removes the nulls, so `HealthRecord` only has optional properties.
 */
import "../zod-without-eval";
import { z } from "zod";
import { fitsBeforeLastTimestamp } from "./limits";
import { parseTimestamp } from "./timestamp";
import {
  custom,
  RECORD_ISSUE_CODES,
  SCHEMA_HASH_PATTERN,
  ZDuration,
  ZId,
  ZJsonRpcId,
  ZLabels,
  ZResourceUrl,
  ZRpcError,
  ZText,
  ZTimestamp,
  ZVerifier,
  ZVersion,
} from "./record-fields";

export {
  ID_PATTERN,
  LABEL_KEY_PATTERN,
  MAX_LABEL_VALUE_LENGTH,
  MAX_LABELS,
  RECORD_ISSUE_CODES,
  SCHEMA_HASH_PATTERN,
  VERSION_PATTERN,
  ZVerifier,
} from "./record-fields";

const ZAuthChallenge = z.strictObject({
  status: z.union([z.literal(401), z.literal(403)], { error: "expected 401 or 403" }),
  at: ZTimestamp,
  error: ZText(64).nullish(),
  requiredScope: ZText(512).nullish(),
  resourceMetadataUrl: ZResourceUrl.nullish(),
  resource: ZResourceUrl.nullish(),
});

const ZSession = z.strictObject({
  id: ZId,
  client: z.strictObject({ name: ZText(128), version: ZText(64) }),
  server: z.strictObject({ name: ZText(128), version: ZText(64) }).nullish(),
  transport: z.enum(["stdio", "streamable-http", "sse", "other"]),
  auth: z
    .strictObject({
      challenge: ZAuthChallenge.nullish(),
      resolvedAt: ZTimestamp.nullish(),
    })
    .nullish(),
  protocol: z.strictObject({
    era: z.enum(["legacy", "modern"]),
    requestedVersion: ZVersion,
    acceptedVersion: ZVersion.nullish(),
    clientSupportedVersions: z.array(ZVersion).min(1),
    serverSupportedVersions: z.array(ZVersion).nullish(),
    initializedAt: ZTimestamp.nullish(),
  }),
  capabilities: z.strictObject({
    server: z.array(ZText()),
    client: z.array(ZText()),
    required: z.strictObject({ server: z.array(ZText()), client: z.array(ZText()) }),
  }),
});

const ZCatalog = z.strictObject({
  pages: z.int().min(0),
  complete: z.boolean(),
  toolCount: z.int().min(0),
  schemaHash: z.string().regex(SCHEMA_HASH_PATTERN, 'expected "sha256:" followed by 64 lowercase hex digits'),
  refreshedAt: ZTimestamp,
  ttlMs: z.int().positive().nullish(),
  listChangedAt: z.array(ZTimestamp),
});

const ZProgressEntry = z.strictObject({
  at: ZTimestamp,
  token: ZJsonRpcId,
  progress: z.number(),
  total: z.number().nullish(),
});

const ZResponse = z
  .strictObject({
    at: ZTimestamp,
    kind: z.enum(["result", "error"]),
    error: ZRpcError.nullish(),
    isError: z.boolean().nullish(),
    resultType: z.enum(["complete", "input_required", "task"]).nullish(),
  })
  .superRefine((response, ctx) => {
    const hasError = response.error !== undefined && response.error !== null;
    if (hasError !== (response.kind === "error")) {
      ctx.addIssue({
        code: "custom",
        path: ["error"],
        ...custom(
          RECORD_ISSUE_CODES.responseErrorMismatch,
          'response.error is required when kind is "error" and only then',
        ),
      });
    }
  });

const ZTask = z.strictObject({
  id: ZId,
  status: z.enum(["working", "input_required", "completed", "failed", "cancelled"]),
  updatedAt: ZTimestamp,
  polledAt: ZTimestamp.nullish(),
  result: z.strictObject({ isError: z.boolean() }).nullish(),
  error: ZRpcError.nullish(),
});

const ZEffect = z.strictObject({
  checkedAt: ZTimestamp,
  status: z.enum(["committed", "absent", "unknown"]),
  receipt: ZText(256).nullish(),
});

const ZOutcome = z.strictObject({
  checkedAt: ZTimestamp,
  verifier: ZVerifier,
  verdict: z.enum(["pass", "fail", "unavailable"]),
  receipt: ZText(256).nullish(),
});

const ZCall = z
  .strictObject({
    requestId: ZJsonRpcId,
    tool: ZText(128),
    inCatalog: z.boolean().nullish(),
    sideEffect: z.enum(["none", "write", "unknown"]),
    operationKey: ZId.nullish(),
    expectedVerifier: ZVerifier.nullish(),
    startedAt: ZTimestamp,
    deadlineMs: ZDuration,
    inactivityMs: ZDuration,
    progressToken: ZJsonRpcId.nullish(),
    progress: z.array(ZProgressEntry),
    cancelledAt: ZTimestamp.nullish(),
    response: ZResponse.nullish(),
    task: ZTask.nullish(),
    effect: ZEffect.nullish(),
    outcome: ZOutcome.nullish(),
  })
  .superRefine((call, ctx) => {
    if (call.task != null && call.response?.resultType !== "task") {
      ctx.addIssue({
        code: "custom",
        path: ["task"],
        ...custom(RECORD_ISSUE_CODES.taskWithoutTaskResult, 'task requires response.resultType "task"'),
      });
    }
    if (call.inactivityMs > call.deadlineMs) {
      ctx.addIssue({
        code: "custom",
        path: ["inactivityMs"],
        ...custom(RECORD_ISSUE_CODES.inactivityExceedsDeadline, "inactivityMs must not exceed deadlineMs"),
      });
    }
    // Zod runs this refinement even when a field failed, so the inputs are checked before they are used.
    const startedMs = typeof call.startedAt === "string" ? parseTimestamp(call.startedAt) : undefined;
    const deadlineMs = call.deadlineMs as unknown;
    if (
      startedMs !== undefined &&
      typeof deadlineMs === "number" &&
      !fitsBeforeLastTimestamp(startedMs, deadlineMs)
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["deadlineMs"],
        ...custom(
          RECORD_ISSUE_CODES.deadlineOutOfRange,
          "startedAt + deadlineMs must fall before 9999-12-31T23:59:59.999Z",
        ),
      });
    }
  });

/**
 * What the reporter could see (contract §1, v1.2). A field that is absent or null means it
 * saw that layer's traffic; `false` means the layer is a gap in coverage, not a finding.
 */
const ZObserved = z.strictObject({
  handshake: z.boolean().nullish(),
  catalog: z.boolean().nullish(),
});

export const ZHealthRecord = z
  .strictObject({
    schemaVersion: z.literal(1, { error: "expected schemaVersion 1" }),
    recordId: ZId,
    chainId: ZId,
    observedAt: ZTimestamp,
    labels: ZLabels.nullish(),
    session: ZSession,
    catalog: ZCatalog.nullish(),
    call: ZCall.nullish(),
    observed: ZObserved.nullish(),
  })
  .superRefine((record, ctx) => {
    // A layer the reporter says it did not see cannot also carry that layer's evidence.
    // Zod runs this refinement even when a field failed, so every step is checked before use.
    const observed = record.observed as { handshake?: unknown; catalog?: unknown } | null | undefined;
    if (typeof observed !== "object" || observed === null) return;
    if (observed.catalog === false && record.catalog != null) {
      ctx.addIssue({
        code: "custom",
        path: ["observed", "catalog"],
        ...custom(
          RECORD_ISSUE_CODES.catalogNotObservedButPresent,
          "observed.catalog false requires catalog to be absent",
        ),
      });
    }
    const protocol = (record.session as { protocol?: { initializedAt?: unknown } } | undefined)?.protocol;
    if (observed.handshake === false && protocol?.initializedAt != null) {
      ctx.addIssue({
        code: "custom",
        path: ["observed", "handshake"],
        ...custom(
          RECORD_ISSUE_CODES.handshakeNotObservedButInitialized,
          "observed.handshake false requires session.protocol.initializedAt to be absent",
        ),
      });
    }
  });

/** Makes every nullable property optional and non-null, recursively ("null" = "absent"). */
type WithoutNulls<T> = T extends readonly (infer U)[]
  ? WithoutNulls<U>[]
  : T extends object
    ? Flatten<
        { [K in keyof T as null extends T[K] ? never : K]: WithoutNulls<T[K]> } & {
          [K in keyof T as null extends T[K] ? K : never]?: WithoutNulls<Exclude<T[K], null | undefined>>;
        }
      >
    : T;
type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** What a producer may send (nulls allowed). */
export type HealthRecordInput = z.input<typeof ZHealthRecord>;
/** A validated record, as `validateRecord` returns it (nulls removed). */
export type HealthRecord = WithoutNulls<z.output<typeof ZHealthRecord>>;
export type Session = HealthRecord["session"];
export type AuthChallenge = NonNullable<NonNullable<Session["auth"]>["challenge"]>;
export type Catalog = NonNullable<HealthRecord["catalog"]>;
export type Call = NonNullable<HealthRecord["call"]>;
export type ProgressEntry = Call["progress"][number];
export type CallResponse = NonNullable<Call["response"]>;
export type RpcError = NonNullable<CallResponse["error"]>;
export type CallTask = NonNullable<Call["task"]>;
export type EffectEvidence = NonNullable<Call["effect"]>;
export type OutcomeEvidence = NonNullable<Call["outcome"]>;
export type Observed = NonNullable<HealthRecord["observed"]>;
export type Verifier = z.infer<typeof ZVerifier>;
export type SideEffect = Call["sideEffect"];
