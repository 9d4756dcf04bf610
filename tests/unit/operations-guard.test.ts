import { describe, expect, it } from "vitest";
import {
  bindingConflict,
  DECISION_REPLY,
  decide,
  type GuardDecision,
  MAX_LEASE_MS,
  retryAfterSeconds,
} from "@/lib/operations/decision";
import { ZGuardRequest, ZOperationKey } from "@/lib/operations/schemas";
import {
  type AttemptEffect,
  type AttemptFacts,
  attemptEffect,
  type LeaseFacts,
  leaseState,
  type OperationStatus,
  operationStatus,
} from "@/lib/operations/status";

const NOW = new Date("2026-12-05T12:00:00.000Z");
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

function attempt(state: string, extra: Partial<AttemptFacts> = {}): AttemptFacts {
  return {
    chainId: `chain:${state}:${extra.chainId ?? ""}`,
    state,
    reasons: [],
    retrySafe: false,
    shadowedState: null,
    tool: "create_report",
    serverName: "reports",
    observedAt: at(-60_000),
    firstSeenAt: at(-60_000),
    ...extra,
  };
}
const lease = (grantedMs: number, untilMs: number): LeaseFacts => ({
  holder: "agent-1",
  grantedAt: at(grantedMs),
  until: at(untilMs),
});

type EffectCase = [string, AttemptFacts, AttemptEffect];
const EFFECTS: EffectCase[] = [
  ["a read-only or refused call (retrySafe)", attempt("tool_failed", { retrySafe: true }), "absent"],
  ["a write the destination shows absent", attempt("false_success", { retrySafe: true }), "absent"],
  ["a refused call in protocol_error", attempt("protocol_error", { retrySafe: true }), "absent"],
  ["a working call", attempt("working", { retrySafe: false }), "pending"],
  ["a timed-out write", attempt("effect_unknown"), "unknown"],
  ["a timed-out write behind a 401", attempt("needs_auth", { shadowedState: "effect_unknown" }), "unknown"],
  ["a write that succeeded (healthy)", attempt("healthy"), "committed"],
  ["a write that succeeded, no outcome receipt", attempt("unverified"), "committed"],
  ["a write whose verifier failed", attempt("false_success"), "committed"],
  [
    "a success behind a stale catalog",
    attempt("stale_catalog", { shadowedState: "false_success" }),
    "committed",
  ],
  ["a write whose tool reported an error", attempt("tool_failed"), "unknown"],
  ["a session-decided write with no shadow", attempt("incompatible_session"), "unknown"],
];

describe("an attempt's effect", () => {
  it.each(EFFECTS)("%s → %s", (_, facts, effect) => {
    expect(attemptEffect(facts)).toBe(effect);
  });
});

describe("a lease", () => {
  it("is live until it ends, expired after, consumed by a chain first seen after the grant", () => {
    expect(leaseState(lease(-1000, 5000), [], NOW)).toBe("live");
    expect(leaseState(lease(-10_000, 0), [], NOW)).toBe("expired");
    expect(leaseState(lease(-1000, 5000), [attempt("working", { firstSeenAt: at(-500) })], NOW)).toBe(
      "consumed",
    );
    expect(leaseState(lease(-1000, -10), [attempt("working", { firstSeenAt: at(-1000) })], NOW)).toBe(
      "consumed",
    );
    // An attempt stored before the grant does not consume it.
    expect(leaseState(lease(-1000, -10), [attempt("tool_failed", { firstSeenAt: at(-2000) })], NOW)).toBe(
      "expired",
    );
  });
});

// Every status, reached from facts, with the decision the guard gives it, its HTTP status and error code.
type StatusCase = [
  string,
  AttemptFacts[],
  LeaseFacts | null,
  OperationStatus,
  GuardDecision,
  number,
  string?,
];
const absent = attempt("tool_failed", { retrySafe: true, chainId: "a" });
const doubt = attempt("effect_unknown", { chainId: "d" });
const done = attempt("healthy", { chainId: "c" });
const running = attempt("working", { chainId: "w" });
const STATUSES: StatusCase[] = [
  ["never seen", [], null, "none", "proceed", 201],
  ["a lease that was never granted, attempts all absent", [absent], null, "absent", "proceed", 201],
  [
    "every attempt proven absent, its lease consumed",
    [absent],
    lease(-120_000, -60_000),
    "absent",
    "proceed",
    201,
  ],
  ["a live lease, no record yet", [], lease(-1000, 5000), "in_flight", "wait", 409, "operation_in_progress"],
  ["a working chain", [running], null, "in_flight", "wait", 409, "operation_in_progress"],
  ["a live lease after an absent attempt", [absent], lease(-1000, 5000), "in_flight", "wait", 409],
  ["an effect_unknown attempt", [doubt], null, "in_doubt", "reconcile_first", 409, "operation_in_doubt"],
  ["a lease that expired with no record", [], lease(-10_000, -1), "in_doubt", "reconcile_first", 409],
  [
    "an absent attempt and an expired lease",
    [absent],
    lease(-10_000, -1),
    "in_doubt",
    "reconcile_first",
    409,
  ],
  ["absent and unknown attempts", [absent, doubt], null, "in_doubt", "reconcile_first", 409],
  ["a committed attempt", [done], null, "committed", "already_committed", 200],
  ["committed beside one in doubt", [doubt, done], null, "committed", "already_committed", 200],
  ["committed beside a live lease", [done], lease(-1000, 5000), "committed", "already_committed", 200],
  ["committed beside one in flight", [running, done], null, "committed", "already_committed", 200],
  ["in flight beside one in doubt", [doubt, running], null, "in_flight", "wait", 409],
  [
    "an expired lease the destination shows committed",
    [],
    settledLease("committed"),
    "committed",
    "already_committed",
    200,
  ],
  ["an expired lease the destination shows absent", [], settledLease("absent"), "absent", "proceed", 201],
  [
    "an expired lease shown absent beside an attempt in doubt",
    [doubt],
    settledLease("absent"),
    "in_doubt",
    "reconcile_first",
    409,
  ],
  [
    "a settlement on a lease still live is not read",
    [],
    { ...lease(-1000, 5000), settled: { effect: "absent", receipt: null, by: "x", at: NOW } },
    "in_flight",
    "wait",
    409,
  ],
];

function settledLease(effect: "committed" | "absent"): LeaseFacts {
  return { ...lease(-10_000, -1), settled: { effect, receipt: null, by: "check:ledger", at: NOW } };
}

describe("an operation's status and the guard's decision", () => {
  it.each(STATUSES)("%s → %s, %s", (_, attempts, held, status, decision, httpStatus, code) => {
    expect(operationStatus(attempts, held, NOW)).toBe(status);
    expect(decide(status)).toBe(decision);
    expect(DECISION_REPLY[decision].status).toBe(httpStatus);
    if (code) expect(DECISION_REPLY[decision].code).toBe(code);
  });

  it("every status is reached by a case, and every decision too", () => {
    expect(new Set(STATUSES.map((c) => c[3]))).toEqual(
      new Set(["none", "in_flight", "in_doubt", "absent", "committed"]),
    );
    expect(new Set(STATUSES.map((c) => c[4]))).toEqual(
      new Set(["proceed", "wait", "reconcile_first", "already_committed"]),
    );
  });

  it("each status has exactly one decision: only none and absent proceed", () => {
    const statuses: OperationStatus[] = ["none", "in_flight", "in_doubt", "absent", "committed"];
    const decisions: GuardDecision[] = ["proceed", "wait", "reconcile_first", "already_committed"];
    for (const status of statuses)
      for (const decision of decisions)
        expect(decide(status) === decision, `${status} × ${decision}`).toBe(
          (decision === "proceed" && (status === "none" || status === "absent")) ||
            (decision === "wait" && status === "in_flight") ||
            (decision === "reconcile_first" && status === "in_doubt") ||
            (decision === "already_committed" && status === "committed"),
        );
  });
});

describe("Retry-After of a wait", () => {
  it("runs until the lease ends, between 1 s and 60 s; 5 s without a lease", () => {
    expect(retryAfterSeconds(at(2500), NOW)).toBe(3);
    expect(retryAfterSeconds(at(10), NOW)).toBe(1);
    expect(retryAfterSeconds(at(-5000), NOW)).toBe(1);
    expect(retryAfterSeconds(at(3_600_000), NOW)).toBe(60);
    expect(retryAfterSeconds(null, NOW)).toBe(5);
  });
});

describe("a key bound to one tool and server", () => {
  const asked = { tool: "create_report", server: "reports" };
  it("accepts the same tool and server, or no server asked", () => {
    expect(bindingConflict(asked, asked, [done])).toBeNull();
    expect(bindingConflict({ tool: "create_report", server: null }, asked, [done])).toBeNull();
    expect(bindingConflict(asked, null, [])).toBeNull();
  });
  it("refuses another tool at $.tool and another server at $.server, from the binding or an attempt", () => {
    expect(bindingConflict({ ...asked, tool: "delete_report" }, asked, [])?.path).toBe("$.tool");
    expect(bindingConflict(asked, null, [attempt("healthy", { tool: "send_mail" })])?.path).toBe("$.tool");
    expect(bindingConflict({ ...asked, server: "mail" }, asked, [])?.path).toBe("$.server");
    expect(bindingConflict(asked, null, [attempt("healthy", { serverName: "other" })])?.path).toBe(
      "$.server",
    );
  });
});

describe("the guard's inputs", () => {
  it.each([
    ["an id", "op:2026-12-05.report_42", true],
    ["the longest id", "k".repeat(128), true],
    ["too long", "k".repeat(129), false],
    ["a space", "op 1", false],
    ["a slash", "op/1", false],
    ["empty", "", false],
    [". and ..", "..", false],
  ])("key %s → %s", (_, key, ok) => {
    expect(ZOperationKey.safeParse(key).success).toBe(ok);
  });

  const good = { tool: "create_report", holder: "agent-1", leaseMs: 30_000 };
  it.each([
    ["no tool", { ...good, tool: undefined }, "tool"],
    ["an empty holder", { ...good, holder: "" }, "holder"],
    ["a zero lease", { ...good, leaseMs: 0 }, "leaseMs"],
    ["a fractional lease", { ...good, leaseMs: 1.5 }, "leaseMs"],
    ["a lease past the cap", { ...good, leaseMs: MAX_LEASE_MS + 1 }, "leaseMs"],
    ["a lease as a string", { ...good, leaseMs: "30000" }, "leaseMs"],
    ["a NUL in the tool", { ...good, tool: "a\u0000b" }, "tool"],
    ["an unknown field", { ...good, extra: 1 }, ""],
  ])("%s is refused at %s", (_, body, path) => {
    const parsed = ZGuardRequest.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path.join(".")).toBe(path);
  });
  it("accepts a good body with or without a server", () => {
    expect(ZGuardRequest.safeParse(good).success).toBe(true);
    expect(ZGuardRequest.safeParse({ ...good, server: "reports", leaseMs: MAX_LEASE_MS }).success).toBe(true);
  });
});
