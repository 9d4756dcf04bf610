/**
 * Every span attribute, event and event attribute the OTLP mapping reads (docs/OTLP.md). Anything not named
 * here is dropped by `redactSpan` before a span is stored.
 */

/** OpenTelemetry semantic conventions for MCP (and the general ones they reference). */
export const SEMCONV = {
  methodName: "mcp.method.name",
  sessionId: "mcp.session.id",
  protocolVersion: "mcp.protocol.version",
  operationName: "gen_ai.operation.name",
  toolName: "gen_ai.tool.name",
  requestId: "jsonrpc.request.id",
  responseStatusCode: "rpc.response.status_code",
  errorType: "error.type",
  networkTransport: "network.transport",
  networkProtocolName: "network.protocol.name",
  serverAddress: "server.address",
  serverPort: "server.port",
  /** On an HTTP client span under an MCP span, or on the MCP span itself: a 401/403 is an auth challenge. */
  httpStatusCode: "http.response.status_code",
} as const;

/** Resource attributes: who the client is when no `receipt.client.*` says so. */
export const RESOURCE = { serviceName: "service.name", serviceVersion: "service.version" } as const;

/** `error.type` for a CallToolResult with `isError: true` (the conventions' value), and the fallback value. */
export const TOOL_ERROR = "tool_error";
export const OTHER_ERROR = "_OTHER";

/** What `@traceloop/instrumentation-mcp` emits: no `mcp.*` attributes, the method in the span name. */
export const TRACELOOP = {
  spanKind: "traceloop.span.kind",
  entityName: "traceloop.entity.name",
  entityInput: "traceloop.entity.input",
  entityOutput: "traceloop.entity.output",
  /** Span name suffixes: `tools/list.mcp`, `get-weather.tool`. */
  methodSuffix: ".mcp",
  toolSuffix: ".tool",
  toolKind: "tool",
  sessionSpanName: "mcp.client.session",
} as const;

/** The exception event every OpenTelemetry SDK's `recordException` adds. */
export const EXCEPTION = {
  event: "exception",
  type: "exception.type",
  message: "exception.message",
} as const;

/**
 * Receipt's own attributes, for what the conventions lack. Set by the agent, or derived by `redactSpan` from
 * content it then drops (traceloop's initialize and tools/list payloads).
 */
export const RECEIPT = {
  // The call (on the tools/call span or its parent span).
  sideEffect: "receipt.call.side_effect",
  operationKey: "receipt.call.operation_key",
  expectedVerifier: "receipt.call.expected_verifier",
  deadlineMs: "receipt.call.deadline_ms",
  inactivityMs: "receipt.call.inactivity_ms",
  requestId: "receipt.call.request_id",
  inCatalog: "receipt.call.in_catalog",
  progressToken: "receipt.call.progress_token",
  resultType: "receipt.call.result_type",
  /**
   * On a span of the agent's own that encloses the call in time (same trace), names the tool it receipts: for
   * instrumentations whose tools/call span is not a child of the agent's active span (traceloop parents it to
   * its session span).
   */
  callTool: "receipt.call.tool",
  // The session (on any span of the call's receipt sources or session spans; client also on the resource).
  clientName: "receipt.client.name",
  clientVersion: "receipt.client.version",
  serverName: "receipt.server.name",
  serverVersion: "receipt.server.version",
  transport: "receipt.session.transport",
  era: "receipt.protocol.era",
  requestedVersion: "receipt.protocol.requested_version",
  acceptedVersion: "receipt.protocol.accepted_version",
  clientSupportedVersions: "receipt.protocol.client_supported_versions",
  serverSupportedVersions: "receipt.protocol.server_supported_versions",
  serverCapabilities: "receipt.capabilities.server",
  clientCapabilities: "receipt.capabilities.client",
  requiredServerCapabilities: "receipt.capabilities.required_server",
  requiredClientCapabilities: "receipt.capabilities.required_client",
  // The catalog (on the tools/list span, or the call's receipt sources).
  catalogComplete: "receipt.catalog.complete",
  catalogPages: "receipt.catalog.pages",
  catalogToolCount: "receipt.catalog.tool_count",
  catalogSchemaHash: "receipt.catalog.schema_hash",
  catalogTtlMs: "receipt.catalog.ttl_ms",
  /** Tool names as sent; `redactSpan` replaces them with `catalogToolNameHashes`. */
  catalogToolNames: "receipt.catalog.tool_names",
  catalogToolNameHashes: "receipt.catalog.tool_name_hashes",
  // Effect and outcome: events (time = checkedAt), or these attributes on a receipt source (its end time).
  effectStatus: "receipt.effect.status",
  effectReceipt: "receipt.effect.receipt",
  outcomeVerifier: "receipt.outcome.verifier",
  outcomeVerdict: "receipt.outcome.verdict",
  outcomeReceipt: "receipt.outcome.receipt",
  // Progress and task events' attributes; also on notifications/progress and tasks/* spans (follow-up-spans.ts).
  progressEventToken: "receipt.progress.token",
  progressValue: "receipt.progress.value",
  progressTotal: "receipt.progress.total",
  taskId: "receipt.task.id",
  taskStatus: "receipt.task.status",
  taskResultIsError: "receipt.task.result_is_error",
  taskErrorCode: "receipt.task.error_code",
  /** Derived from an exception event's message ("MCP error -32602: …"): the code alone. */
  exceptionCode: "receipt.exception.code",
  /** Derived from an exception event whose type is AbortError: the caller aborted. */
  exceptionAbort: "receipt.exception.abort",
  // An authorization challenge's details (event `receipt.auth.challenge`, or on the failing span).
  authStatus: "receipt.auth.status",
  authError: "receipt.auth.error",
  authRequiredScope: "receipt.auth.required_scope",
  authResourceMetadataUrl: "receipt.auth.resource_metadata_url",
  authResource: "receipt.auth.resource",
  /**
   * Set by `redactSpan`: the names of the span's (or its resource's) peer name and version attributes, and
   * protocol version attributes, it dropped because their value looked like a credential or held a control
   * character (NUL included) or an unpaired surrogate.
   */
  masked: "receipt.masked",
  /** Set by `redactSpan`: the names of the peer name and version attributes it cut to the record's length. */
  truncated: "receipt.truncated",
  /** `receipt.label.<key>`: a record label (on the resource or a receipt source). */
  labelPrefix: "receipt.label.",
} as const;

/** Receipt's span events; each event's time is the evidence's time. */
export const RECEIPT_EVENTS = {
  effect: "receipt.effect",
  outcome: "receipt.outcome",
  progress: "receipt.progress",
  cancelled: "receipt.cancelled",
  task: "receipt.task",
  authChallenge: "receipt.auth.challenge",
} as const;

/** The attributes each Receipt event keeps. */
export const RECEIPT_EVENT_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  [RECEIPT_EVENTS.effect]: [RECEIPT.effectStatus, RECEIPT.effectReceipt],
  [RECEIPT_EVENTS.outcome]: [RECEIPT.outcomeVerifier, RECEIPT.outcomeVerdict, RECEIPT.outcomeReceipt],
  [RECEIPT_EVENTS.progress]: [RECEIPT.progressEventToken, RECEIPT.progressValue, RECEIPT.progressTotal],
  [RECEIPT_EVENTS.cancelled]: [],
  [RECEIPT_EVENTS.task]: [
    RECEIPT.taskId,
    RECEIPT.taskStatus,
    RECEIPT.taskResultIsError,
    RECEIPT.taskErrorCode,
  ],
  [RECEIPT_EVENTS.authChallenge]: [
    RECEIPT.authStatus,
    RECEIPT.authError,
    RECEIPT.authRequiredScope,
    RECEIPT.authResourceMetadataUrl,
    RECEIPT.authResource,
  ],
  [EXCEPTION.event]: [RECEIPT.exceptionCode, RECEIPT.exceptionAbort],
};

/** MCP methods the mapping reads. */
export const METHODS = {
  initialize: "initialize",
  initialized: "notifications/initialized",
  discover: "server/discover",
  toolsList: "tools/list",
  toolsCall: "tools/call",
  listChanged: "notifications/tools/list_changed",
  cancelled: "notifications/cancelled",
  progress: "notifications/progress",
  tasksGet: "tasks/get",
  tasksResult: "tasks/result",
  tasksCancel: "tasks/cancel",
  tasksList: "tasks/list",
} as const;

/** Method names recognised from a span name alone (`{method}` or `{method} {target}`). */
export const KNOWN_METHODS: ReadonlySet<string> = new Set([
  ...Object.values(METHODS),
  "ping",
  "resources/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
]);
