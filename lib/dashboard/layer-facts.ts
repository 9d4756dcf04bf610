import type { Call, HealthRecord } from "../contract/record";
import type { Layer } from "../contract/states";
import { handshakeSeen } from "./unseen-layers";

/** One piece of evidence as the chain page shows it. `kind` tells the view how to format `value`. */
export type Fact = {
  label: string;
  value: string;
  kind?: "text" | "time" | "code" | "duration";
  tone?: "good" | "bad" | "weak" | "muted";
};

/** Destination evidence in force for the chain: the record's own, or an operator's newer reconciliation. */
export type EffectiveEffect = NonNullable<Call["effect"]> & { recordedBy?: string };

const list = (values: readonly string[] | undefined) => (values?.length ? values.join(", ") : "none");
const time = (label: string, value: string | undefined): Fact[] =>
  value ? [{ label, value, kind: "time" }] : [];

/** The evidence each layer holds, in the words of contract §1 (versions, capabilities, pages, hash…). */
export function layerFacts(record: HealthRecord, layer: Layer, effect: EffectiveEffect | undefined): Fact[] {
  switch (layer) {
    case "session":
      return sessionFacts(record);
    case "catalog":
      return catalogFacts(record);
    case "request":
      return record.call ? requestFacts(record.call) : [];
    case "effect":
      return record.call ? effectFacts(record.call, effect) : [];
    case "outcome":
      return record.call ? outcomeFacts(record.call) : [];
  }
}

/** Contract v1.2: evidence of a layer the reporter did not see is "not observed", never a bad value. */
const NOT_SEEN = (label: string): Fact => ({ label, value: "not observed", tone: "muted" });
const notSeenOr = (seen: boolean, fact: Fact): Fact => (seen ? fact : NOT_SEEN(fact.label));

function sessionFacts(record: HealthRecord): Fact[] {
  const { session } = record;
  const handshake = handshakeSeen(record);
  const { protocol, capabilities, auth } = session;
  return [
    { label: "Client", value: `${session.client.name} ${session.client.version}` },
    session.server
      ? { label: "Server", value: `${session.server.name} ${session.server.version}` }
      : notSeenOr(handshake, { label: "Server", value: "never answered", tone: "bad" }),
    { label: "Transport", value: session.transport },
    { label: "Protocol era", value: protocol.era },
    { label: "Requested version", value: protocol.requestedVersion, kind: "code" },
    protocol.acceptedVersion
      ? { label: "Accepted version", value: protocol.acceptedVersion, kind: "code" }
      : notSeenOr(handshake, { label: "Accepted version", value: "none", tone: "bad" }),
    { label: "Client supports", value: list(protocol.clientSupportedVersions), kind: "code" },
    ...(protocol.serverSupportedVersions
      ? [{ label: "Server supports", value: list(protocol.serverSupportedVersions), kind: "code" as const }]
      : []),
    ...(handshake ? time("Initialized", protocol.initializedAt) : [NOT_SEEN("Initialized")]),
    { label: "Server capabilities", value: list(capabilities.server), kind: "code" },
    { label: "Client capabilities", value: list(capabilities.client), kind: "code" },
    {
      label: "Required",
      value: `server: ${list(capabilities.required.server)}; client: ${list(capabilities.required.client)}`,
      kind: "code",
    },
    ...(auth?.challenge
      ? [
          {
            label: "Auth challenge",
            value: [
              auth.challenge.status,
              auth.challenge.error,
              auth.challenge.requiredScope && `scope ${auth.challenge.requiredScope}`,
            ]
              .filter(Boolean)
              .join(" · "),
            tone: "bad" as const,
          },
          ...time("Challenged at", auth.challenge.at),
        ]
      : []),
    ...time("Auth resolved", auth?.resolvedAt),
  ];
}

function catalogFacts(record: HealthRecord): Fact[] {
  const catalog = record.catalog;
  if (record.observed?.catalog === false) return [NOT_SEEN("Tool list")];
  if (!catalog) return [];
  return [
    { label: "Pages read", value: String(catalog.pages) },
    catalog.complete
      ? { label: "Complete", value: "yes: followed nextCursor to the end", tone: "good" }
      : { label: "Complete", value: "no: stopped before the last page", tone: "bad" },
    { label: "Tools", value: String(catalog.toolCount) },
    { label: "Schema hash", value: catalog.schemaHash, kind: "code" },
    ...time("Refreshed", catalog.refreshedAt),
    ...(catalog.ttlMs ? [{ label: "TTL", value: String(catalog.ttlMs), kind: "duration" as const }] : []),
    ...(catalog.listChangedAt.length
      ? catalog.listChangedAt.map((at) => ({ label: "list_changed", value: at, kind: "time" as const }))
      : [{ label: "list_changed", value: "never received", tone: "muted" as const }]),
  ];
}

function requestFacts(call: Call): Fact[] {
  const response = call.response;
  return [
    { label: "Tool", value: call.tool, kind: "code" },
    { label: "Request id", value: String(call.requestId), kind: "code" },
    ...(call.inCatalog === false ? [{ label: "In catalog", value: "no", tone: "bad" as const }] : []),
    {
      label: "Side effect",
      value: call.sideEffect === "unknown" ? "unknown (counts as write)" : call.sideEffect,
    },
    ...(call.operationKey
      ? [{ label: "Operation key", value: call.operationKey, kind: "code" as const }]
      : []),
    ...time("Started", call.startedAt),
    { label: "Deadline", value: String(call.deadlineMs), kind: "duration" },
    { label: "Inactivity window", value: String(call.inactivityMs), kind: "duration" },
    ...time("Cancelled", call.cancelledAt),
    ...(response
      ? [
          ...time("Response at", response.at),
          {
            label: "Response",
            value:
              response.kind === "error"
                ? `error ${response.error?.code ?? ""} ${response.error?.class ?? ""}`.trim()
                : `result${response.isError ? " with isError" : ""} (${response.resultType ?? "complete"})`,
            tone: response.kind === "error" || response.isError ? ("bad" as const) : undefined,
          },
        ]
      : [{ label: "Response", value: "none received", tone: "bad" as const }]),
    ...(call.task
      ? [
          { label: "Task", value: `${call.task.id}: ${call.task.status}`, kind: "code" as const },
          ...time("Task updated", call.task.updatedAt),
          ...time("Last polled", call.task.polledAt),
          ...(call.task.error
            ? [
                {
                  label: "Task error",
                  value: `${call.task.error.code} ${call.task.error.class}`,
                  tone: "bad" as const,
                },
              ]
            : []),
        ]
      : []),
  ];
}

function effectFacts(call: Call, effect: EffectiveEffect | undefined): Fact[] {
  if (call.sideEffect === "none")
    return [{ label: "Side effect", value: "none: read-only, nothing to check" }];
  if (!effect) return [];
  return [
    {
      label: "Destination",
      value: effect.status,
      tone: effect.status === "committed" ? "good" : effect.status === "absent" ? "bad" : "muted",
    },
    ...(effect.receipt ? [{ label: "Receipt", value: effect.receipt, kind: "code" as const }] : []),
    ...time("Checked", effect.checkedAt),
    ...(effect.recordedBy ? [{ label: "Recorded by", value: `${effect.recordedBy} (reconciliation)` }] : []),
  ];
}

function outcomeFacts(call: Call): Fact[] {
  const outcome = call.outcome;
  return [
    {
      label: "Expected verifier",
      value: call.expectedVerifier ?? "none declared",
      tone: call.expectedVerifier ? undefined : "muted",
    },
    ...(outcome
      ? [
          {
            label: "Verifier",
            value: outcome.verifier === "llm_judge" ? "llm_judge (weak evidence)" : outcome.verifier,
            tone: outcome.verifier === "llm_judge" ? ("weak" as const) : undefined,
          },
          {
            label: "Verdict",
            value: outcome.verdict,
            tone: outcome.verdict === "pass" ? ("good" as const) : ("bad" as const),
          },
          ...(outcome.receipt ? [{ label: "Receipt", value: outcome.receipt, kind: "code" as const }] : []),
          ...time("Checked", outcome.checkedAt),
        ]
      : []),
  ];
}
