import type { HealthRecord } from "../contract/record";
import type { Layer } from "../contract/states";
import type { EffectiveEffect } from "./layer-facts";
import { handshakeSeen } from "./unseen-layers";

/**
 * What a layer is *missing*, said plainly ("no outcome receipt", "catalog changed after last refresh"). Read from
 * the evidence itself, not from the deciding reason, so a gap shows even in a layer the classifier never reached.
 * Times are ISO strings the view formats.
 */
export function evidenceGaps(
  record: HealthRecord,
  layer: Layer,
  effect: EffectiveEffect | undefined,
): string[] {
  switch (layer) {
    case "session":
      return sessionGaps(record);
    case "catalog":
      return catalogGaps(record);
    case "request":
      return requestGaps(record);
    case "effect":
      return effectGaps(record, effect);
    case "outcome":
      return outcomeGaps(record);
  }
}

const ms = (iso: string) => Date.parse(iso);

function sessionGaps(record: HealthRecord): string[] {
  const { auth } = record.session;
  // Contract v1.2: what an unseen handshake lacks was not seen, not missing: only the authorization is evidence.
  const gaps = handshakeSeen(record) ? handshakeGaps(record.session) : [];
  const challenge = auth?.challenge;
  if (challenge && (!auth?.resolvedAt || ms(auth.resolvedAt) < ms(challenge.at))) {
    gaps.push(
      `Authorization challenge ${challenge.status}${challenge.error ? ` ${challenge.error}` : ""} never resolved.`,
    );
  }
  return gaps;
}

/** What rules 3–6 would find missing: an answer, an agreed version, the initialized notice, capabilities. */
function handshakeGaps(session: HealthRecord["session"]): string[] {
  const gaps: string[] = [];
  const { protocol, capabilities } = session;
  if (!session.server) gaps.push("The server never answered: no server name, no version.");
  if (!protocol.acceptedVersion) gaps.push("No protocol version was agreed.");
  else if (!protocol.clientSupportedVersions.includes(protocol.acceptedVersion)) {
    gaps.push(`The agreed version ${protocol.acceptedVersion} is not one the client supports.`);
  }
  if (protocol.era === "legacy" && !protocol.initializedAt)
    gaps.push("The handshake never finished (no initialized).");
  for (const name of capabilities.required.server.filter((c) => !capabilities.server.includes(c))) {
    gaps.push(`Required server capability "${name}" was not offered.`);
  }
  for (const name of capabilities.required.client.filter((c) => !capabilities.client.includes(c))) {
    gaps.push(`Required client capability "${name}" was not offered.`);
  }
  return gaps;
}

function catalogGaps(record: HealthRecord): string[] {
  const catalog = record.catalog;
  // Contract v1.2: an unseen tool list was not "never read"; the layer says what was not seen instead.
  if (record.observed?.catalog === false) return [];
  if (!catalog) return ["The tool list was never read."];
  const gaps: string[] = [];
  const ref = ms(record.call?.startedAt ?? record.observedAt);
  const refreshed = ms(catalog.refreshedAt);
  if (!catalog.complete)
    gaps.push(`The tool list was read only partly (${catalog.pages} page(s), no last page).`);
  const changes = catalog.listChangedAt.filter((at) => ms(at) > refreshed && ms(at) <= ref);
  if (changes.length > 0) {
    gaps.push(`The catalog changed after the last refresh (${changes.length} list_changed not re-read).`);
  }
  if (catalog.ttlMs && ref > refreshed + catalog.ttlMs)
    gaps.push("The catalog had expired when the call was chosen.");
  return gaps;
}

function requestGaps(record: HealthRecord): string[] {
  const call = record.call;
  if (!call) return ["No tool call in this chain: nothing was invoked."];
  const gaps: string[] = [];
  if (call.inCatalog === false) gaps.push(`"${call.tool}" was not in the tool list the client read.`);
  const response = call.response;
  const finished =
    response?.kind === "error" ||
    (response !== undefined && (response.resultType ?? "complete") === "complete") ||
    call.task?.status === "completed" ||
    call.task?.status === "failed";
  if (!response) gaps.push("No response from the server.");
  else if (!finished) gaps.push("No definitive result yet.");
  if (call.cancelledAt && !finished) gaps.push("The client cancelled before a definitive result.");
  return gaps;
}

function effectGaps(record: HealthRecord, effect: EffectiveEffect | undefined): string[] {
  const call = record.call;
  if (!call || call.sideEffect === "none") return [];
  if (!effect) return ["No destination check: nobody has looked whether the write happened."];
  if (effect.status === "unknown")
    return ["The destination check could not tell whether the write happened."];
  if (effect.status === "absent") return ["The destination shows nothing: the write is not there."];
  return [];
}

function outcomeGaps(record: HealthRecord): string[] {
  const call = record.call;
  if (!call) return [];
  const outcome = call.outcome;
  if (!outcome) {
    return [
      call.expectedVerifier
        ? `No outcome receipt yet: the ${call.expectedVerifier} verifier has not reported.`
        : "No outcome receipt: no verifier was declared for this call.",
    ];
  }
  if (outcome.verdict === "unavailable")
    return ["No outcome receipt: the verifier could not read the result back."];
  if (outcome.verdict === "fail") return ["The verifier says the deliverable is wrong or missing."];
  if (outcome.verifier === "llm_judge") return ["Only weak evidence: the verdict comes from an LLM judge."];
  return [];
}
