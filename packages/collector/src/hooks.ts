import type { CallEvidence, Verifier } from "./record-types";
import type { ToolResult } from "./sdk/session-client";
import { iso } from "./time";

/**
 * Effect and outcome hooks, chosen by the caller before the call (so `expectedVerifier` is on
 * the record from the start). They get the arguments and the tool's result in-process; only
 * their status/verdict and a short redacted receipt go into the record.
 */
export type HookInput = {
  args: Record<string, unknown> | undefined;
  /** Absent when the server never sent a usable result (timeout, abort, JSON-RPC error). */
  result: ToolResult | undefined;
  operationKey?: string;
};
export type EffectStatus = "committed" | "absent" | "unknown";
export type EffectHook = (input: HookInput) => Promise<EffectCheck> | EffectCheck;
export type EffectCheck = { status: EffectStatus; receipt?: string };
export type OutcomeCheck = { verdict: "pass" | "fail" | "unavailable"; receipt?: string };
export type OutcomeVerifier = {
  kind: Verifier;
  verify: (input: Omit<HookInput, "operationKey">) => Promise<OutcomeCheck> | OutcomeCheck;
};
/** A bare function is accepted too; it is recorded as verifier "other". */
export type OutcomeHook = OutcomeVerifier | OutcomeVerifier["verify"];

export function outcomeVerifier(hook: OutcomeHook | undefined): OutcomeVerifier | undefined {
  if (!hook) return undefined;
  return typeof hook === "function" ? { kind: "other", verify: hook } : hook;
}

/** A hook that throws could not tell: that is "unknown"/"unavailable", never a pass. */
export async function runEffectHook(hook: EffectHook, input: HookInput): Promise<CallEvidence["effect"]> {
  let check: EffectCheck;
  try {
    check = await hook(input);
  } catch {
    check = { status: "unknown" };
  }
  const status = ["committed", "absent", "unknown"].includes(check?.status) ? check.status : "unknown";
  return withReceipt({ checkedAt: iso(Date.now()), status }, check?.receipt);
}

export async function runOutcomeHook(
  verifier: OutcomeVerifier,
  input: HookInput,
): Promise<CallEvidence["outcome"]> {
  let check: OutcomeCheck;
  try {
    check = await verifier.verify({ args: input.args, result: input.result });
  } catch {
    check = { verdict: "unavailable" };
  }
  const verdict = ["pass", "fail", "unavailable"].includes(check?.verdict) ? check.verdict : "unavailable";
  return withReceipt({ checkedAt: iso(Date.now()), verifier: verifier.kind, verdict }, check?.receipt);
}

function withReceipt<T extends object>(evidence: T, receipt: unknown): T & { receipt?: string } {
  if (typeof receipt !== "string" || receipt.length === 0) return evidence;
  return { ...evidence, receipt: receipt.slice(0, 256) };
}
