// The evidence a notification carries, taken from the chain's current (already redacted) record.
// Only named fields are copied — never arguments, content or anything token-shaped — and only
// what a receiver needs to act: what was challenged, which versions disagreed, which request
// failed and how, which verifier said no. Client-safe: the route test uses it in the browser too.
import type { HealthRecord } from "@/lib/contract";
import type { AlertContext } from "./payload";

const missingFrom = (required: readonly string[], present: readonly string[], side: string): string[] =>
  required.filter((name) => !present.includes(name)).map((name) => `${side}.${name}`);

export function alertContextFromRecord(record: HealthRecord): AlertContext {
  const { session, call } = record;
  const context: AlertContext = {};
  const challenge = session.auth?.challenge;
  if (challenge) {
    context.resource = challenge.resource;
    context.requiredScope = challenge.requiredScope;
    context.resourceMetadataUrl = challenge.resourceMetadataUrl;
    context.authError = challenge.error;
  }

  const { protocol, capabilities } = session;
  context.clientVersion = session.client.version;
  context.serverVersion = session.server?.version;
  context.requestedVersion = protocol.requestedVersion;
  context.negotiatedVersion = protocol.acceptedVersion;
  const missing = [
    ...missingFrom(capabilities.required.server, capabilities.server, "server"),
    ...missingFrom(capabilities.required.client, capabilities.client, "client"),
  ];
  context.capabilities = {
    client: [...capabilities.client],
    server: [...capabilities.server],
    ...(missing.length > 0 ? { missing } : {}),
  };

  if (call) {
    context.method = "tools/call";
    context.requestId = call.requestId;
    // A failed task carries its own error; a response error wins when both exist (it came first).
    const error = call.response?.error ?? call.task?.error;
    if (error) {
      context.errorCode = error.code;
      context.errorClass = error.class;
    }
    context.operationKey = call.operationKey;
    context.effectStatus = call.effect?.status;
    // The verifier that judged the outcome, else the one that was declared and never answered.
    context.verifier = call.outcome?.verifier ?? call.expectedVerifier;
    context.verdict = call.outcome?.verdict;
  }
  return withoutUndefined(context);
}

function withoutUndefined(context: AlertContext): AlertContext {
  return Object.fromEntries(Object.entries(context).filter(([, v]) => v !== undefined)) as AlertContext;
}
