/**
 * Contract §3/§4 as a table: one row per transition. Each row names the rule it exercises so
 * the coverage checks at the bottom can prove every rule and every reason code has a row.
 */
import { describe, expect, it } from "vitest";
import { type Classification, classify } from "@/lib/classifier/classify";
import { layerOfReason, REASON_CODES, REASONS as R } from "@/lib/classifier/reasons";
import type { HealthRecord } from "@/lib/contract/record";
import { validateRecord } from "@/lib/contract/validate";
import {
  build,
  buildCall,
  catalogUnseen,
  handshakeUnseen,
  inFlightWrite,
  legacyRecord,
  modernRecord,
  onlyCallSeen,
  t,
} from "@/tests/support/record-builders";

type Case = {
  name: string;
  /** Rules of §3 (1–22) this row exercises; 0 = the no-call rule. */
  rules: number[];
  /** v1.2 clauses this row exercises: an unseen handshake, an unseen catalog, rule 22's "never green". */
  v12?: ("handshake_not_observed" | "catalog_not_observed" | "unseen_not_green")[];
  record: HealthRecord;
  /** Replaces the record's observedAt (the default `at`); the base records are observed at 60 s. */
  observedAt?: string;
  /** Passed to classify as `at`. */
  at?: string;
  expected: Partial<Classification> & Pick<Classification, "state" | "reasons">;
};

const unresolvedChallenge = { status: 401 as const, at: t(-500), error: "invalid_token" };

const cases: Case[] = [
  // ── baselines, both eras ────────────────────────────────────────────────────────────────
  {
    name: "legacy: verified write is healthy with strong evidence",
    rules: [22],
    record: legacyRecord(),
    expected: {
      state: "healthy",
      layer: "outcome",
      reasons: [R.OUTCOME_VERIFIED],
      evidence: "strong",
      retrySafe: false,
    },
  },
  {
    name: "modern: completed task, verified, is healthy (no initialize needed)",
    rules: [5, 14, 22],
    record: modernRecord(),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED], evidence: "strong" },
  },

  // ── session: rule 1 ─────────────────────────────────────────────────────────────────────
  {
    name: "1: challenge without resolvedAt needs auth",
    rules: [1],
    record: build((r) => {
      r.session.auth = { challenge: unresolvedChallenge };
    }),
    expected: {
      state: "needs_auth",
      layer: "session",
      reasons: [R.AUTH_CHALLENGE_UNRESOLVED],
      retrySafe: false,
    },
  },
  {
    name: "1: resolvedAt earlier than the challenge is unresolved",
    rules: [1],
    record: build((r) => {
      r.session.auth = { challenge: unresolvedChallenge, resolvedAt: t(-501) };
    }),
    expected: { state: "needs_auth", reasons: [R.AUTH_CHALLENGE_UNRESOLVED] },
  },
  {
    name: "1: resolvedAt equal to the challenge counts as resolved",
    rules: [1],
    record: build((r) => {
      r.session.auth = { challenge: unresolvedChallenge, resolvedAt: t(-500) };
    }),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED] },
  },
  {
    name: "1: resolvedAt in another zone, same instant, counts as resolved",
    rules: [1],
    record: build((r) => {
      r.session.auth = {
        challenge: { status: 403, at: "2026-11-30T09:59:59.500Z" },
        resolvedAt: "2026-11-30T10:59:59.500+01:00",
      };
    }),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED] },
  },
  {
    name: "1: a challenge on a chain without a call has no retrySafe",
    rules: [1],
    record: build((r) => {
      r.session.auth = { challenge: unresolvedChallenge };
      delete r.call;
    }),
    expected: {
      state: "needs_auth",
      reasons: [R.AUTH_CHALLENGE_UNRESOLVED],
      retrySafe: undefined,
      shadowed: undefined,
    },
  },

  // ── session: rule 2 ─────────────────────────────────────────────────────────────────────
  {
    name: "2: response error -32042 needs auth; refused before running, so retry-safe",
    rules: [2],
    record: buildCall((c) => {
      c.response = {
        at: t(1_000),
        kind: "error",
        error: { code: -32042, class: "url_elicitation_required" },
      };
    }),
    expected: {
      state: "needs_auth",
      layer: "session",
      reasons: [R.AUTH_URL_ELICITATION_REQUIRED],
      retrySafe: true,
      // v1.1: the request layer would only restate this same error.
      shadowed: undefined,
    },
  },
  {
    name: "2: failed task with -32042 needs auth; the task ran, so not retry-safe",
    rules: [2],
    record: buildCall((c) => {
      c.task = {
        id: "task:1",
        status: "failed",
        updatedAt: t(5_000),
        error: { code: -32042, class: "url_elicitation_required" },
      };
    }, modernRecord),
    expected: {
      state: "needs_auth",
      reasons: [R.AUTH_URL_ELICITATION_REQUIRED],
      retrySafe: false,
      shadowed: undefined,
    },
  },

  // ── session: rules 3–5 ──────────────────────────────────────────────────────────────────
  {
    name: "3: no accepted version and no server: no answer; the timed-out write shows through",
    rules: [3],
    record: buildCall((c, r) => {
      delete r.session.server;
      delete r.session.protocol.acceptedVersion;
      inFlightWrite(c);
    }),
    expected: {
      state: "incompatible_session",
      layer: "session",
      reasons: [R.SESSION_NO_ANSWER],
      retrySafe: false,
      shadowed: { state: "effect_unknown", reason: R.EFFECT_UNRECONCILED },
    },
  },
  {
    name: "3: server answered but no version was agreed",
    rules: [3],
    record: build((r) => {
      delete r.session.protocol.acceptedVersion;
    }),
    expected: { state: "incompatible_session", reasons: [R.SESSION_NO_AGREED_VERSION], shadowed: undefined },
  },
  {
    name: "3: server answered with versions it serves, one of them the client's, but none agreed: no agreed version",
    rules: [3],
    record: build((r) => {
      delete r.session.protocol.acceptedVersion;
      r.session.protocol.serverSupportedVersions = ["2026-07-28"];
      r.session.protocol.clientSupportedVersions = ["2025-11-25", "2026-07-28"];
    }, modernRecord),
    expected: { state: "incompatible_session", reasons: [R.SESSION_NO_AGREED_VERSION] },
  },
  {
    name: "3: server answered with versions it serves, none of them the client's (a -32022): version unsupported",
    rules: [3],
    record: build((r) => {
      delete r.session.protocol.acceptedVersion;
      r.session.protocol.serverSupportedVersions = ["2026-07-28"];
      r.session.protocol.clientSupportedVersions = ["2027-01-01"];
    }, modernRecord),
    expected: { state: "incompatible_session", reasons: [R.SESSION_VERSION_UNSUPPORTED] },
  },
  {
    name: "3: a legacy server refused server/discover (no modern version served, an empty list): version unsupported",
    rules: [3],
    record: build((r) => {
      delete r.session.protocol.acceptedVersion;
      r.session.protocol.serverSupportedVersions = [];
    }, modernRecord),
    expected: { state: "incompatible_session", reasons: [R.SESSION_VERSION_UNSUPPORTED] },
  },
  {
    name: "3: server versions named but no server: still no answer (the server's absence is read first)",
    rules: [3],
    record: build((r) => {
      delete r.session.server;
      delete r.session.protocol.acceptedVersion;
      r.session.protocol.serverSupportedVersions = [];
    }, modernRecord),
    expected: { state: "incompatible_session", reasons: [R.SESSION_NO_ANSWER] },
  },
  {
    name: "4: accepted version the client does not support",
    rules: [4],
    record: build((r) => {
      r.session.protocol.acceptedVersion = "2024-11-05";
    }),
    expected: { state: "incompatible_session", reasons: [R.SESSION_VERSION_UNSUPPORTED] },
  },
  {
    name: "4: modern era, accepted version outside the client's list",
    rules: [4],
    record: build((r) => {
      r.session.protocol.acceptedVersion = "2027-01-15";
    }, modernRecord),
    expected: { state: "incompatible_session", reasons: [R.SESSION_VERSION_UNSUPPORTED] },
  },
  {
    name: "5: legacy without notifications/initialized",
    rules: [5],
    record: build((r) => {
      delete r.session.protocol.initializedAt;
    }),
    expected: { state: "incompatible_session", reasons: [R.SESSION_NOT_INITIALIZED] },
  },

  // ── session: rules 6–7 ──────────────────────────────────────────────────────────────────
  {
    name: "6: required server capability not listed",
    rules: [6],
    record: build((r) => {
      r.session.capabilities.required.server = ["tools", "resources"];
    }),
    expected: { state: "incompatible_session", reasons: [R.SESSION_CAPABILITY_MISSING] },
  },
  {
    name: "6: required client capability not listed",
    rules: [6],
    record: build((r) => {
      r.session.capabilities.required.client = ["sampling"];
    }),
    expected: { state: "incompatible_session", reasons: [R.SESSION_CAPABILITY_MISSING] },
  },
  {
    name: "6: present means listed exactly (a sub-key does not imply its parent)",
    rules: [6],
    record: build((r) => {
      r.session.capabilities.server = ["tools.listChanged"];
    }),
    expected: { state: "incompatible_session", reasons: [R.SESSION_CAPABILITY_MISSING] },
  },
  {
    name: "6: modern tasks extension required but not offered by the server",
    rules: [6],
    record: build((r) => {
      r.session.capabilities.server = ["tools"];
    }, modernRecord),
    expected: { state: "incompatible_session", reasons: [R.SESSION_CAPABILITY_MISSING] },
  },
  {
    name: "7: response error -32021 is a missing capability, retry-safe",
    rules: [7],
    record: buildCall((c) => {
      c.response = { at: t(1_000), kind: "error", error: { code: -32021, class: "capability_missing" } };
    }),
    expected: {
      state: "incompatible_session",
      reasons: [R.SESSION_CAPABILITY_MISSING],
      retrySafe: true,
      shadowed: undefined,
    },
  },
  {
    name: "7: response error -32022 is an unsupported version, retry-safe",
    rules: [7],
    record: buildCall((c) => {
      delete c.task;
      c.response = { at: t(1_000), kind: "error", error: { code: -32022, class: "unsupported_version" } };
    }, modernRecord),
    expected: {
      state: "incompatible_session",
      reasons: [R.SESSION_VERSION_UNSUPPORTED],
      retrySafe: true,
      shadowed: undefined,
    },
  },
  {
    name: "7: failed task with -32021",
    rules: [7],
    record: buildCall((c) => {
      c.task = {
        id: "task:1",
        status: "failed",
        updatedAt: t(5_000),
        error: { code: -32021, class: "capability_missing" },
      };
    }, modernRecord),
    expected: {
      state: "incompatible_session",
      reasons: [R.SESSION_CAPABILITY_MISSING],
      retrySafe: false,
      shadowed: undefined,
    },
  },
  {
    name: "7: failed task with -32022 on a write: the task ran, so not retry-safe and nothing shadowed",
    rules: [7],
    record: buildCall((c) => {
      c.sideEffect = "write";
      c.task = {
        id: "task:1",
        status: "failed",
        updatedAt: t(5_000),
        error: { code: -32022, class: "unsupported_version" },
      };
    }, modernRecord),
    expected: {
      state: "incompatible_session",
      reasons: [R.SESSION_VERSION_UNSUPPORTED],
      retrySafe: false,
      shadowed: undefined,
    },
  },
  {
    name: "7: failed read-only task with -32021 is retry-safe by the read-only rule, not the refusal",
    rules: [7],
    record: buildCall((c) => {
      c.sideEffect = "none";
      c.task = {
        id: "task:1",
        status: "failed",
        updatedAt: t(5_000),
        error: { code: -32021, class: "capability_missing" },
      };
    }, modernRecord),
    expected: {
      state: "incompatible_session",
      reasons: [R.SESSION_CAPABILITY_MISSING],
      retrySafe: true,
      shadowed: undefined,
    },
  },
  {
    name: "2 vs 1: an unresolved challenge decides first, so the call's -32042 still shows through as shadowed",
    rules: [1, 2],
    record: buildCall((c, r) => {
      r.session.auth = { challenge: unresolvedChallenge };
      c.response = {
        at: t(1_000),
        kind: "error",
        error: { code: -32042, class: "url_elicitation_required" },
      };
    }),
    expected: {
      state: "needs_auth",
      reasons: [R.AUTH_CHALLENGE_UNRESOLVED],
      retrySafe: true,
      shadowed: { state: "tool_failed", reason: R.REQUEST_SERVER_ERROR },
    },
  },
  {
    name: "6 vs 7: a capability missing from the handshake decides first; the call's -32021 shows as shadowed",
    rules: [6, 7],
    record: buildCall((c, r) => {
      r.session.capabilities.required.server = [...r.session.capabilities.required.server, "prompts"];
      c.response = { at: t(1_000), kind: "error", error: { code: -32021, class: "capability_missing" } };
    }),
    expected: {
      state: "incompatible_session",
      reasons: [R.SESSION_CAPABILITY_MISSING],
      retrySafe: true,
      shadowed: { state: "tool_failed", reason: R.REQUEST_SERVER_ERROR },
    },
  },
  {
    name: "catalog vs other errors: a server error behind a stale catalog is still shadowed",
    rules: [8, 13],
    record: buildCall((c, r) => {
      delete r.catalog;
      c.response = { at: t(1_000), kind: "error", error: { code: -32603, class: "internal" } };
    }),
    expected: {
      state: "stale_catalog",
      reasons: [R.CATALOG_NOT_READ],
      retrySafe: false,
      shadowed: { state: "tool_failed", reason: R.REQUEST_SERVER_ERROR },
    },
  },

  // ── precedence between layers ───────────────────────────────────────────────────────────
  {
    name: "precedence: an auth challenge beats an unsupported version",
    rules: [1, 4],
    record: build((r) => {
      r.session.auth = { challenge: unresolvedChallenge };
      r.session.protocol.acceptedVersion = "2024-11-05";
    }),
    expected: { state: "needs_auth", reasons: [R.AUTH_CHALLENGE_UNRESOLVED] },
  },
  {
    name: "precedence: URL elicitation beats a missing handshake",
    rules: [2, 5],
    record: buildCall((c, r) => {
      delete r.session.protocol.initializedAt;
      c.response = {
        at: t(1_000),
        kind: "error",
        error: { code: -32042, class: "url_elicitation_required" },
      };
    }),
    expected: { state: "needs_auth", reasons: [R.AUTH_URL_ELICITATION_REQUIRED] },
  },
  {
    name: "precedence: an incompatible session beats an unread catalog",
    rules: [4, 8],
    record: build((r) => {
      r.session.protocol.acceptedVersion = "2024-11-05";
      delete r.catalog;
    }),
    expected: { state: "incompatible_session", reasons: [R.SESSION_VERSION_UNSUPPORTED] },
  },
  {
    name: "precedence: a stale catalog beats a JSON-RPC error (which is shadowed)",
    rules: [9, 13],
    record: buildCall((c, r) => {
      if (r.catalog) r.catalog.complete = false;
      c.response = { at: t(1_000), kind: "error", error: { code: -32603, class: "internal_error" } };
    }),
    expected: {
      state: "stale_catalog",
      layer: "catalog",
      reasons: [R.CATALOG_INCOMPLETE],
      retrySafe: false,
      shadowed: { state: "tool_failed", reason: R.REQUEST_SERVER_ERROR },
    },
  },
  {
    name: "precedence: a stale catalog beats a caller error (shadowed as protocol_error)",
    rules: [10, 13],
    record: buildCall((c, r) => {
      if (r.catalog) r.catalog.listChangedAt = [t(-100)];
      c.response = { at: t(1_000), kind: "error", error: { code: -32602, class: "invalid_params" } };
    }),
    expected: {
      state: "stale_catalog",
      reasons: [R.CATALOG_CHANGED_SINCE_REFRESH],
      retrySafe: true,
      shadowed: { state: "protocol_error", reason: R.REQUEST_CALLER_ERROR },
    },
  },
  {
    name: "precedence: capability missing beats a stale catalog",
    rules: [6, 9],
    record: build((r) => {
      r.session.capabilities.required.client = ["roots"];
      if (r.catalog) r.catalog.complete = false;
    }),
    expected: { state: "incompatible_session", reasons: [R.SESSION_CAPABILITY_MISSING] },
  },
  {
    name: "precedence: an unknown tool beats the caller error it caused",
    rules: [12, 13],
    record: buildCall((c) => {
      c.inCatalog = false;
      c.response = { at: t(1_000), kind: "error", error: { code: -32602, class: "invalid_params" } };
    }),
    expected: { state: "protocol_error", reasons: [R.REQUEST_UNKNOWN_TOOL], retrySafe: true },
  },

  // ── catalog: rules 8–11 ─────────────────────────────────────────────────────────────────
  {
    name: "8: no catalog read before the call",
    rules: [8],
    record: build((r) => {
      delete r.catalog;
    }),
    expected: {
      state: "stale_catalog",
      layer: "catalog",
      reasons: [R.CATALOG_NOT_READ],
      retrySafe: false,
      shadowed: undefined,
    },
  },
  {
    name: "8: no catalog and no call (no retrySafe without a call)",
    rules: [8],
    record: build((r) => {
      delete r.catalog;
      delete r.call;
    }),
    expected: { state: "stale_catalog", reasons: [R.CATALOG_NOT_READ], retrySafe: undefined },
  },
  {
    name: "9: refresh did not follow nextCursor to the end",
    rules: [9],
    record: build((r) => {
      if (r.catalog) r.catalog.complete = false;
    }),
    expected: { state: "stale_catalog", reasons: [R.CATALOG_INCOMPLETE] },
  },
  {
    name: "10: list_changed after the refresh and before the call",
    rules: [10],
    record: build((r) => {
      if (r.catalog) r.catalog.listChangedAt = [t(-2_000), t(-500)];
    }),
    expected: { state: "stale_catalog", reasons: [R.CATALOG_CHANGED_SINCE_REFRESH] },
  },
  {
    name: "10: list_changed exactly at refreshedAt is covered by that refresh",
    rules: [10],
    record: build((r) => {
      if (r.catalog) r.catalog.listChangedAt = [t(-1_000)];
    }),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED] },
  },
  {
    name: "10: list_changed exactly at startedAt (ref) counts",
    rules: [10],
    record: build((r) => {
      if (r.catalog) r.catalog.listChangedAt = [t(0)];
    }),
    expected: { state: "stale_catalog", reasons: [R.CATALOG_CHANGED_SINCE_REFRESH] },
  },
  {
    name: "10: list_changed after the call started did not mislead it",
    rules: [10],
    record: build((r) => {
      if (r.catalog) r.catalog.listChangedAt = [t(1)];
    }),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED] },
  },
  {
    name: "10: without a call, ref is `at`: a later change is stale once `at` reaches it",
    rules: [0, 10],
    record: build((r) => {
      delete r.call;
      if (r.catalog) r.catalog.listChangedAt = [t(70_000)];
    }),
    at: t(70_000),
    expected: { state: "stale_catalog", reasons: [R.CATALOG_CHANGED_SINCE_REFRESH] },
  },
  {
    name: "11: ttl expired before the call started",
    rules: [11],
    record: build((r) => {
      if (r.catalog) r.catalog.refreshedAt = t(-300_001);
    }, modernRecord),
    expected: { state: "stale_catalog", reasons: [R.CATALOG_EXPIRED] },
  },
  {
    name: "11: exactly refreshedAt + ttlMs is still fresh",
    rules: [11],
    record: build((r) => {
      if (r.catalog) r.catalog.refreshedAt = t(-300_000);
    }, modernRecord),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED] },
  },
  {
    name: "11: without a call the cache expires against `at`",
    rules: [0, 11],
    record: build((r) => {
      delete r.call;
    }, modernRecord),
    at: t(299_001),
    expected: { state: "stale_catalog", reasons: [R.CATALOG_EXPIRED], retrySafe: undefined },
  },

  // ── no call ─────────────────────────────────────────────────────────────────────────────
  {
    name: "no call: nothing to receipt, quiet but not green",
    rules: [0],
    record: build((r) => {
      delete r.call;
    }),
    expected: { state: "unverified", layer: "outcome", reasons: [R.CHAIN_NO_CALL], retrySafe: undefined },
  },

  // ── request: rules 12–13 ────────────────────────────────────────────────────────────────
  {
    name: "12: a tool that was not offered, answered with isError",
    rules: [12],
    record: buildCall((c) => {
      c.inCatalog = false;
      c.response = { at: t(1_000), kind: "result", isError: true };
    }),
    expected: {
      state: "protocol_error",
      layer: "request",
      reasons: [R.REQUEST_UNKNOWN_TOOL],
      retrySafe: true,
    },
  },
  ...[-32700, -32600, -32601, -32602, -32020].map(
    (code): Case => ({
      name: `13: caller-set code ${code} is a protocol error, retry-safe`,
      rules: [13],
      record: buildCall((c) => {
        c.response = { at: t(1_000), kind: "error", error: { code, class: "caller" } };
      }),
      expected: {
        state: "protocol_error",
        layer: "request",
        reasons: [R.REQUEST_CALLER_ERROR],
        retrySafe: true,
      },
    }),
  ),
  {
    name: "13: any other code is a server error; a write is not retry-safe",
    rules: [13],
    record: buildCall((c) => {
      c.response = { at: t(1_000), kind: "error", error: { code: -32603, class: "internal_error" } };
    }),
    expected: { state: "tool_failed", layer: "request", reasons: [R.REQUEST_SERVER_ERROR], retrySafe: false },
  },
  {
    name: "13: a server error on a read-only call is retry-safe",
    rules: [13],
    record: buildCall((c) => {
      c.sideEffect = "none";
      c.response = { at: t(1_000), kind: "error", error: { code: -32000, class: "server_error" } };
    }),
    expected: { state: "tool_failed", reasons: [R.REQUEST_SERVER_ERROR], retrySafe: true },
  },

  // ── request: rule 14 terminal evidence ──────────────────────────────────────────────────
  {
    name: "14: resultType absent means complete",
    rules: [14],
    record: buildCall((c) => {
      c.response = { at: t(1_000), kind: "result" };
    }),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED] },
  },
  {
    name: "14/18: completed task whose result is an error",
    rules: [14, 18],
    record: buildCall((c) => {
      c.task = { id: "task:1", status: "completed", updatedAt: t(5_000), result: { isError: true } };
    }, modernRecord),
    expected: { state: "tool_failed", layer: "request", reasons: [R.REQUEST_TOOL_ERROR] },
  },
  {
    name: "14: completed task without a result counts as isError false",
    rules: [14],
    record: buildCall((c) => {
      c.task = { id: "task:1", status: "completed", updatedAt: t(5_000) };
    }, modernRecord),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED] },
  },
  {
    name: "14: failed task with a caller-set code",
    rules: [14],
    record: buildCall((c) => {
      c.task = {
        id: "task:1",
        status: "failed",
        updatedAt: t(5_000),
        error: { code: -32602, class: "invalid_params" },
      };
    }, modernRecord),
    expected: { state: "protocol_error", layer: "request", reasons: [R.TASK_CALLER_ERROR], retrySafe: false },
  },
  {
    name: "14: failed task with another code",
    rules: [14],
    record: buildCall((c) => {
      c.task = {
        id: "task:1",
        status: "failed",
        updatedAt: t(5_000),
        error: { code: -32603, class: "internal_error" },
      };
    }, modernRecord),
    expected: { state: "tool_failed", layer: "request", reasons: [R.TASK_FAILED] },
  },
  {
    name: "14: failed task without an error",
    rules: [14],
    record: buildCall((c) => {
      c.task = { id: "task:1", status: "failed", updatedAt: t(5_000) };
    }, modernRecord),
    expected: { state: "tool_failed", reasons: [R.TASK_FAILED] },
  },
  {
    name: "14: the client cancelled a write with no response: effect in doubt",
    rules: [14, 17],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.cancelledAt = t(5_000);
    }),
    expected: {
      state: "effect_unknown",
      layer: "effect",
      reasons: [R.EFFECT_UNRECONCILED, R.REQUEST_CANCELLED],
      retrySafe: false,
    },
  },
  {
    name: "14: cancellation is cooperative: a cancelled call is unfinished even while the task works",
    rules: [14],
    record: buildCall((c) => {
      c.task = { id: "task:1", status: "working", updatedAt: t(59_000) };
      c.cancelledAt = t(50_000);
      delete c.effect;
      delete c.outcome;
    }, modernRecord),
    expected: { state: "effect_unknown", reasons: [R.EFFECT_UNRECONCILED, R.REQUEST_CANCELLED] },
  },
  {
    name: "14: a task the server reports cancelled",
    rules: [14],
    record: buildCall((c) => {
      c.task = { id: "task:1", status: "cancelled", updatedAt: t(5_000) };
      delete c.effect;
      delete c.outcome;
    }, modernRecord),
    expected: { state: "effect_unknown", reasons: [R.EFFECT_UNRECONCILED, R.TASK_CANCELLED] },
  },
  {
    name: "14: client cancel and cancelled task are both on the path, in order",
    rules: [14],
    record: buildCall((c) => {
      c.task = { id: "task:1", status: "cancelled", updatedAt: t(5_000) };
      c.cancelledAt = t(4_000);
      delete c.effect;
      delete c.outcome;
    }, modernRecord),
    expected: {
      state: "effect_unknown",
      reasons: [R.EFFECT_UNRECONCILED, R.REQUEST_CANCELLED, R.TASK_CANCELLED],
    },
  },
  {
    name: "14: a complete result beats a later cancel",
    rules: [14],
    record: buildCall((c) => {
      c.cancelledAt = t(2_000);
    }),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED] },
  },
  {
    name: "14: a completed task beats a cancel",
    rules: [14],
    record: buildCall((c) => {
      c.cancelledAt = t(2_000);
    }, modernRecord),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED] },
  },

  // ── request: rule 15 in-flight ──────────────────────────────────────────────────────────
  {
    name: "15: no response yet, inside both clocks",
    rules: [14, 15],
    record: buildCall(inFlightWrite),
    observedAt: t(5_000),
    expected: {
      state: "working",
      layer: "request",
      reasons: [R.REQUEST_IN_FLIGHT],
      retrySafe: false,
      nextCheckAt: t(10_000),
    },
  },
  {
    name: "15: resultType input_required: its response time is activity",
    rules: [14, 15],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.response = { at: t(8_000), kind: "result", resultType: "input_required" };
    }),
    observedAt: t(12_000),
    expected: { state: "working", reasons: [R.REQUEST_INPUT_REQUIRED], nextCheckAt: t(18_000) },
  },
  {
    name: "15: task working: task.updatedAt is activity",
    rules: [14, 15],
    record: buildCall((c) => {
      c.task = { id: "task:1", status: "working", updatedAt: t(12_000), polledAt: t(14_000) };
      delete c.effect;
      delete c.outcome;
    }, modernRecord),
    observedAt: t(15_000),
    expected: { state: "working", reasons: [R.TASK_WORKING], nextCheckAt: t(22_000) },
  },
  {
    name: "15: task input_required",
    rules: [14, 15],
    record: buildCall((c) => {
      c.task = { id: "task:1", status: "input_required", updatedAt: t(3_000) };
      delete c.effect;
      delete c.outcome;
    }, modernRecord),
    observedAt: t(5_000),
    expected: { state: "working", reasons: [R.REQUEST_INPUT_REQUIRED], nextCheckAt: t(13_000) },
  },
  {
    name: "15: a task handle with no status yet is in flight",
    rules: [14, 15],
    record: buildCall((c) => {
      delete c.task;
      delete c.effect;
      delete c.outcome;
    }, modernRecord),
    observedAt: t(5_000),
    expected: { state: "working", reasons: [R.REQUEST_IN_FLIGHT], nextCheckAt: t(10_000) },
  },
  {
    name: "15: exactly at the deadline is still working",
    rules: [15],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.inactivityMs = 30_000;
    }),
    observedAt: t(30_000),
    expected: { state: "working", reasons: [R.REQUEST_IN_FLIGHT], nextCheckAt: t(30_000) },
  },
  {
    name: "15: one millisecond past the deadline",
    rules: [15, 17],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.inactivityMs = 30_000;
    }),
    observedAt: t(30_001),
    expected: { state: "effect_unknown", reasons: [R.EFFECT_UNRECONCILED, R.REQUEST_DEADLINE_EXCEEDED] },
  },
  {
    name: "15: exactly at the end of the idle window is still working",
    rules: [15],
    record: buildCall(inFlightWrite),
    observedAt: t(10_000),
    expected: { state: "working", nextCheckAt: t(10_000), reasons: [R.REQUEST_IN_FLIGHT] },
  },
  {
    name: "15: one millisecond past the idle window is inactive",
    rules: [15, 17],
    record: buildCall(inFlightWrite),
    observedAt: t(10_001),
    expected: { state: "effect_unknown", reasons: [R.EFFECT_UNRECONCILED, R.REQUEST_INACTIVE] },
  },
  {
    name: "15: past both clocks reports the deadline only",
    rules: [15],
    record: buildCall(inFlightWrite),
    expected: { state: "effect_unknown", reasons: [R.EFFECT_UNRECONCILED, R.REQUEST_DEADLINE_EXCEEDED] },
  },
  {
    name: "15: valid progress resets the idle window; the deadline still bounds nextCheckAt",
    rules: [15],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.progress = [
        { at: t(8_000), token: "pt-1", progress: 10 },
        { at: t(25_000), token: "pt-1", progress: 20, total: 100 },
      ];
    }),
    observedAt: t(26_000),
    expected: { state: "working", reasons: [R.REQUEST_IN_FLIGHT], nextCheckAt: t(30_000) },
  },
  {
    name: '15: a token of another JSON type (1 vs "1") is not valid activity',
    rules: [15],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.progressToken = 1;
      c.progress = [{ at: t(8_000), token: "1", progress: 10 }];
    }),
    observedAt: t(12_000),
    expected: {
      state: "effect_unknown",
      reasons: [R.EFFECT_UNRECONCILED, R.REQUEST_PROGRESS_INCONSISTENT, R.REQUEST_INACTIVE],
    },
  },
  {
    name: "15: same type and value is valid (integer tokens)",
    rules: [15],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.progressToken = 1;
      c.progress = [{ at: t(8_000), token: 1, progress: 10 }];
    }),
    observedAt: t(12_000),
    expected: { state: "working", reasons: [R.REQUEST_IN_FLIGHT], nextCheckAt: t(18_000) },
  },
  {
    name: "15: progress without a progressToken is invalid",
    rules: [15],
    record: buildCall((c) => {
      inFlightWrite(c);
      delete c.progressToken;
      c.progress = [{ at: t(8_000), token: "pt-1", progress: 10 }];
    }),
    observedAt: t(9_000),
    expected: {
      state: "working",
      reasons: [R.REQUEST_IN_FLIGHT, R.REQUEST_PROGRESS_INCONSISTENT],
      nextCheckAt: t(10_000),
    },
  },
  {
    name: "15: progress that does not increase is ignored",
    rules: [15],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.progress = [
        { at: t(3_000), token: "pt-1", progress: 5 },
        { at: t(8_000), token: "pt-1", progress: 5 },
      ];
    }),
    observedAt: t(14_000),
    expected: {
      state: "effect_unknown",
      reasons: [R.EFFECT_UNRECONCILED, R.REQUEST_PROGRESS_INCONSISTENT, R.REQUEST_INACTIVE],
    },
  },
  {
    name: "15: increasing is measured against the previous valid entry, not the bad one",
    rules: [15],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.progress = [
        { at: t(3_000), token: "pt-1", progress: 5 },
        { at: t(4_000), token: "pt-1", progress: 3 },
        { at: t(8_000), token: "pt-1", progress: 4 },
        { at: t(9_000), token: "pt-1", progress: 6 },
      ];
    }),
    observedAt: t(12_000),
    expected: {
      state: "working",
      reasons: [R.REQUEST_IN_FLIGHT, R.REQUEST_PROGRESS_INCONSISTENT],
      nextCheckAt: t(19_000),
    },
  },
  {
    name: "15: progress from before startedAt is ignored",
    rules: [15],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.progress = [{ at: t(-1), token: "pt-1", progress: 1 }];
    }),
    observedAt: t(5_000),
    expected: {
      state: "working",
      reasons: [R.REQUEST_IN_FLIGHT, R.REQUEST_PROGRESS_INCONSISTENT],
      nextCheckAt: t(10_000),
    },
  },
  {
    name: "15: progress exactly at startedAt is valid",
    rules: [15],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.progress = [{ at: t(0), token: "pt-1", progress: 1 }];
    }),
    observedAt: t(5_000),
    expected: { state: "working", reasons: [R.REQUEST_IN_FLIGHT], nextCheckAt: t(10_000) },
  },
  {
    name: "15: progress after `at` is ignored",
    rules: [15],
    record: buildCall((c, r) => {
      inFlightWrite(c);
      r.observedAt = t(5_000);
      c.progress = [{ at: t(6_000), token: "pt-1", progress: 1 }];
    }),
    expected: {
      state: "working",
      reasons: [R.REQUEST_IN_FLIGHT, R.REQUEST_PROGRESS_INCONSISTENT],
      nextCheckAt: t(10_000),
    },
  },
  {
    name: "15: progress after the response of a terminal result is inconsistent",
    rules: [15, 22],
    record: buildCall((c) => {
      c.progress = [
        { at: t(1_000), token: "pt-1", progress: 1 },
        { at: t(1_001), token: "pt-1", progress: 2 },
      ];
    }),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED, R.REQUEST_PROGRESS_INCONSISTENT] },
  },
  {
    name: "15: progress on a task result may follow the handle's response",
    rules: [15],
    record: buildCall((c) => {
      c.progressToken = 9;
      c.progress = [{ at: t(10_000), token: 9, progress: 50 }];
    }, modernRecord),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED] },
  },
  {
    name: "15: invalid progress on a failed task is still reported",
    rules: [14, 15],
    record: buildCall((c) => {
      c.task = { id: "task:1", status: "failed", updatedAt: t(5_000) };
      c.progress = [{ at: t(1_000), token: "other", progress: 1 }];
    }, modernRecord),
    expected: { state: "tool_failed", reasons: [R.TASK_FAILED, R.REQUEST_PROGRESS_INCONSISTENT] },
  },

  // ── rule 16: evidence from before the call ──────────────────────────────────────────────
  {
    name: "16: an effect check from before the call is ignored (and its 'absent' is not trusted)",
    rules: [16, 19],
    record: buildCall((c) => {
      c.effect = { checkedAt: t(-1), status: "absent" };
    }),
    expected: {
      state: "healthy",
      reasons: [R.OUTCOME_VERIFIED, R.EFFECT_CHECKED_BEFORE_CALL],
      retrySafe: false,
    },
  },
  {
    name: "16: an effect check exactly at startedAt is used",
    rules: [16, 19],
    record: buildCall((c) => {
      c.effect = { checkedAt: t(0), status: "absent" };
    }),
    expected: { state: "false_success", reasons: [R.EFFECT_ABSENT], retrySafe: true },
  },
  {
    name: "16: an outcome from before the call is ignored",
    rules: [16, 20],
    record: buildCall((c) => {
      c.outcome = { checkedAt: t(-1), verifier: "db_row", verdict: "pass" };
    }),
    expected: { state: "unverified", reasons: [R.OUTCOME_PENDING, R.OUTCOME_CHECKED_BEFORE_CALL] },
  },
  {
    name: "16: both ignored, effect first, after the request path codes",
    rules: [15, 16, 17],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.effect = { checkedAt: t(-2), status: "absent" };
      c.outcome = { checkedAt: t(-1), verifier: "db_row", verdict: "fail" };
    }),
    expected: {
      state: "effect_unknown",
      reasons: [
        R.EFFECT_UNRECONCILED,
        R.REQUEST_DEADLINE_EXCEEDED,
        R.EFFECT_CHECKED_BEFORE_CALL,
        R.OUTCOME_CHECKED_BEFORE_CALL,
      ],
      retrySafe: false,
    },
  },

  // ── rule 17: unfinished ─────────────────────────────────────────────────────────────────
  {
    name: "17: an unfinished read-only call simply failed, retry-safe",
    rules: [17],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.sideEffect = "none";
    }),
    expected: {
      state: "tool_failed",
      layer: "request",
      reasons: [R.REQUEST_UNFINISHED_READ_ONLY, R.REQUEST_DEADLINE_EXCEEDED],
      retrySafe: true,
    },
  },
  {
    name: "17: a timed-out write the destination shows absent failed in the effect layer",
    rules: [17],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.effect = { checkedAt: t(40_000), status: "absent" };
    }),
    expected: {
      state: "tool_failed",
      layer: "effect",
      reasons: [R.EFFECT_ABSENT, R.REQUEST_DEADLINE_EXCEEDED],
      retrySafe: true,
    },
  },
  {
    name: "17: a timed-out write the destination shows committed continues to the outcome",
    rules: [17, 22],
    record: buildCall((c) => {
      delete c.response;
    }),
    expected: {
      state: "healthy",
      reasons: [R.OUTCOME_VERIFIED, R.REQUEST_DEADLINE_EXCEEDED],
      retrySafe: false,
    },
  },
  {
    name: "17: committed but not yet verified",
    rules: [17, 20],
    record: buildCall((c) => {
      delete c.response;
      delete c.outcome;
    }),
    expected: { state: "unverified", reasons: [R.OUTCOME_PENDING, R.REQUEST_DEADLINE_EXCEEDED] },
  },
  {
    name: "17: an effect check that could not tell leaves the write in doubt",
    rules: [17],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.effect = { checkedAt: t(40_000), status: "unknown" };
    }),
    expected: { state: "effect_unknown", reasons: [R.EFFECT_UNRECONCILED, R.REQUEST_DEADLINE_EXCEEDED] },
  },
  {
    name: "17: sideEffect unknown counts as a write",
    rules: [17],
    record: buildCall((c) => {
      inFlightWrite(c);
      c.sideEffect = "unknown";
    }),
    expected: {
      state: "effect_unknown",
      reasons: [R.EFFECT_UNRECONCILED, R.REQUEST_DEADLINE_EXCEEDED],
      retrySafe: false,
    },
  },

  // ── rule 18 ─────────────────────────────────────────────────────────────────────────────
  {
    name: "18: isError result is a tool failure, whatever the destination says",
    rules: [18],
    record: buildCall((c) => {
      c.response = { at: t(1_000), kind: "result", isError: true };
    }),
    expected: { state: "tool_failed", layer: "request", reasons: [R.REQUEST_TOOL_ERROR], retrySafe: false },
  },
  {
    name: "18: isError on a read-only call is retry-safe",
    rules: [18],
    record: buildCall((c) => {
      c.sideEffect = "none";
      c.response = { at: t(1_000), kind: "result", isError: true };
    }),
    expected: { state: "tool_failed", reasons: [R.REQUEST_TOOL_ERROR], retrySafe: true },
  },

  // ── rules 19–22 ─────────────────────────────────────────────────────────────────────────
  {
    name: "19: success but the destination shows nothing",
    rules: [19],
    record: buildCall((c) => {
      c.effect = { checkedAt: t(20_000), status: "absent" };
    }),
    expected: { state: "false_success", layer: "effect", reasons: [R.EFFECT_ABSENT], retrySafe: true },
  },
  {
    name: "19: a read-only call needs no destination evidence",
    rules: [19],
    record: buildCall((c) => {
      c.sideEffect = "none";
      c.effect = { checkedAt: t(20_000), status: "absent" };
    }),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED], retrySafe: true },
  },
  {
    name: "19: an effect check that could not tell decides nothing: the outcome does",
    rules: [19, 21],
    record: buildCall((c) => {
      c.effect = { checkedAt: t(20_000), status: "unknown" };
      c.outcome = { checkedAt: t(30_000), verifier: "db_row", verdict: "fail" };
    }),
    expected: { state: "false_success", layer: "outcome", reasons: [R.OUTCOME_VERIFIER_FAILED] },
  },
  {
    name: "20: no outcome while a verifier is expected: pending",
    rules: [20],
    record: buildCall((c) => {
      delete c.outcome;
    }),
    expected: { state: "unverified", layer: "outcome", reasons: [R.OUTCOME_PENDING] },
  },
  {
    name: "20: no outcome and none declared: no receipt",
    rules: [20],
    record: buildCall((c) => {
      delete c.outcome;
      delete c.expectedVerifier;
    }),
    expected: { state: "unverified", reasons: [R.OUTCOME_NO_RECEIPT] },
  },
  {
    name: "20: the verifier could not read the result back",
    rules: [20],
    record: buildCall((c) => {
      c.outcome = { checkedAt: t(30_000), verifier: "http_status", verdict: "unavailable" };
    }),
    expected: { state: "unverified", reasons: [R.OUTCOME_UNAVAILABLE] },
  },
  {
    name: "21: the verifier failed",
    rules: [21],
    record: buildCall((c) => {
      c.outcome = { checkedAt: t(30_000), verifier: "test", verdict: "fail", receipt: "3 of 12 failed" };
    }),
    expected: {
      state: "false_success",
      layer: "outcome",
      reasons: [R.OUTCOME_VERIFIER_FAILED],
      retrySafe: false,
    },
  },
  {
    name: "22: an LLM judge is weak evidence",
    rules: [22],
    record: buildCall((c) => {
      c.outcome = { checkedAt: t(30_000), verifier: "llm_judge", verdict: "pass" };
    }),
    expected: {
      state: "healthy",
      reasons: [R.OUTCOME_VERIFIED, R.OUTCOME_WEAK_EVIDENCE],
      evidence: "weak",
    },
  },
  {
    name: "22: a read-only call verified without any effect evidence",
    rules: [22],
    record: buildCall((c) => {
      c.sideEffect = "none";
      delete c.effect;
    }),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED], evidence: "strong", retrySafe: true },
  },

  // ── shadowed ────────────────────────────────────────────────────────────────────────────
  {
    name: "shadowed: a timed-out write behind an auth challenge is still an effect in doubt",
    rules: [1, 17],
    record: buildCall((c, r) => {
      r.session.auth = { challenge: unresolvedChallenge };
      inFlightWrite(c);
    }),
    expected: {
      state: "needs_auth",
      reasons: [R.AUTH_CHALLENGE_UNRESOLVED],
      retrySafe: false,
      shadowed: { state: "effect_unknown", reason: R.EFFECT_UNRECONCILED },
    },
  },
  {
    name: "shadowed: a false success behind a stale catalog",
    rules: [9, 19],
    record: buildCall((c, r) => {
      if (r.catalog) r.catalog.complete = false;
      c.effect = { checkedAt: t(20_000), status: "absent" };
    }),
    expected: {
      state: "stale_catalog",
      reasons: [R.CATALOG_INCOMPLETE],
      shadowed: { state: "false_success", reason: R.EFFECT_ABSENT },
    },
  },
  {
    name: "shadowed: an unknown tool behind an unread catalog",
    rules: [8, 12],
    record: buildCall((c, r) => {
      delete r.catalog;
      c.inCatalog = false;
    }),
    expected: {
      state: "stale_catalog",
      reasons: [R.CATALOG_NOT_READ],
      retrySafe: true,
      shadowed: { state: "protocol_error", reason: R.REQUEST_UNKNOWN_TOOL },
    },
  },
  {
    name: "shadowed: not reported for a call that would be working",
    rules: [9, 15],
    record: buildCall((c, r) => {
      if (r.catalog) r.catalog.complete = false;
      inFlightWrite(c);
    }),
    observedAt: t(5_000),
    expected: {
      state: "stale_catalog",
      reasons: [R.CATALOG_INCOMPLETE],
      shadowed: undefined,
      nextCheckAt: undefined,
    },
  },
  {
    name: "shadowed: not reported for a call that would be unverified",
    rules: [4, 20],
    record: buildCall((c, r) => {
      r.session.protocol.acceptedVersion = "2024-11-05";
      delete c.outcome;
    }),
    expected: {
      state: "incompatible_session",
      reasons: [R.SESSION_VERSION_UNSUPPORTED],
      shadowed: undefined,
    },
  },

  // ── v1.2: what the reporter did not see is a coverage gap, never an incident ────────────
  {
    name: "v1.2: a sampled trace without initialize is unverified in the session layer, not incompatible",
    rules: [5, 22],
    v12: ["handshake_not_observed", "unseen_not_green"],
    record: build(handshakeUnseen),
    expected: {
      state: "unverified",
      layer: "session",
      reasons: [R.SESSION_NOT_OBSERVED],
      retrySafe: false,
      evidence: undefined,
      shadowed: undefined,
    },
  },
  {
    name: "v1.2: handshake unseen: no answer, no agreed version, unsupported version or missing capability decide nothing",
    rules: [3, 4, 6, 22],
    v12: ["handshake_not_observed", "unseen_not_green"],
    record: build((r) => {
      handshakeUnseen(r);
      delete r.session.server;
      delete r.session.protocol.acceptedVersion;
      r.session.capabilities.required.client = ["sampling"];
    }),
    expected: { state: "unverified", layer: "session", reasons: [R.SESSION_NOT_OBSERVED] },
  },
  {
    name: "v1.2: handshake unseen: an accepted version outside the client's list decides nothing",
    rules: [4, 22],
    v12: ["handshake_not_observed", "unseen_not_green"],
    record: build((r) => {
      handshakeUnseen(r);
      r.session.protocol.acceptedVersion = "2024-11-05";
    }),
    expected: { state: "unverified", reasons: [R.SESSION_NOT_OBSERVED] },
  },
  {
    name: "v1.2: modern era, handshake unseen (no server/discover seen): unverified, not green",
    rules: [14, 22],
    v12: ["handshake_not_observed", "unseen_not_green"],
    record: build(handshakeUnseen, modernRecord),
    expected: { state: "unverified", layer: "session", reasons: [R.SESSION_NOT_OBSERVED], retrySafe: false },
  },
  {
    name: "v1.2: handshake unseen: rule 1 still applies, before the unseen layer arises",
    rules: [1],
    v12: ["handshake_not_observed"],
    record: build((r) => {
      handshakeUnseen(r);
      r.session.auth = { challenge: unresolvedChallenge };
    }),
    expected: { state: "needs_auth", layer: "session", reasons: [R.AUTH_CHALLENGE_UNRESOLVED] },
  },
  {
    name: "v1.2: handshake unseen: rule 2 still applies (-32042), and the call's own error hides nothing",
    rules: [2],
    v12: ["handshake_not_observed"],
    record: buildCall((c, r) => {
      handshakeUnseen(r);
      c.response = { at: t(1_000), kind: "error", error: { code: -32042, class: "url_elicitation" } };
    }),
    expected: {
      state: "needs_auth",
      reasons: [R.AUTH_URL_ELICITATION_REQUIRED],
      retrySafe: true,
      shadowed: undefined,
    },
  },
  {
    name: "v1.2: handshake unseen: rule 7 still applies (-32021), with the unseen handshake on its path",
    rules: [7],
    v12: ["handshake_not_observed"],
    record: buildCall((c, r) => {
      handshakeUnseen(r);
      c.response = { at: t(1_000), kind: "error", error: { code: -32021, class: "capability" } };
    }),
    expected: {
      state: "incompatible_session",
      layer: "session",
      reasons: [R.SESSION_CAPABILITY_MISSING, R.SESSION_NOT_OBSERVED],
      retrySafe: true,
      shadowed: undefined,
    },
  },
  {
    name: "v1.2: handshake unseen, catalog seen and incomplete: stale, the unseen handshake on its path, shadowed as ever",
    rules: [9, 14, 17],
    v12: ["handshake_not_observed"],
    record: buildCall((c, r) => {
      handshakeUnseen(r);
      if (r.catalog) r.catalog.complete = false;
      c.response = { at: t(1_000), kind: "result", isError: true };
    }),
    expected: {
      state: "stale_catalog",
      layer: "catalog",
      reasons: [R.CATALOG_INCOMPLETE, R.SESSION_NOT_OBSERVED],
      shadowed: { state: "tool_failed", reason: R.REQUEST_TOOL_ERROR },
    },
  },
  {
    name: "v1.2: catalog unseen: an absent catalog is not 'never read'; a verified call is unverified in the catalog layer",
    rules: [8, 22],
    v12: ["catalog_not_observed", "unseen_not_green"],
    record: build(catalogUnseen),
    expected: {
      state: "unverified",
      layer: "catalog",
      reasons: [R.CATALOG_NOT_OBSERVED],
      retrySafe: false,
      evidence: undefined,
    },
  },
  {
    name: "v1.2: both unseen: the first not-observed code decides (session), the other follows",
    rules: [22],
    v12: ["handshake_not_observed", "catalog_not_observed", "unseen_not_green"],
    record: build(onlyCallSeen),
    expected: {
      state: "unverified",
      layer: "session",
      reasons: [R.SESSION_NOT_OBSERVED, R.CATALOG_NOT_OBSERVED],
      evidence: undefined,
    },
  },
  {
    name: "v1.2: both unseen, read-only call verified by an LLM judge: unverified, weak-evidence code kept on the path",
    rules: [22],
    v12: ["handshake_not_observed", "catalog_not_observed", "unseen_not_green"],
    record: buildCall((c, r) => {
      onlyCallSeen(r);
      c.sideEffect = "none";
      if (c.outcome) c.outcome.verifier = "llm_judge";
    }),
    expected: {
      state: "unverified",
      layer: "session",
      reasons: [R.SESSION_NOT_OBSERVED, R.CATALOG_NOT_OBSERVED, R.OUTCOME_WEAK_EVIDENCE],
      retrySafe: true,
      evidence: undefined,
    },
  },
  {
    name: "v1.2: catalog unseen, verified after an early effect check: unverified, rule 16's code after the unseen layer",
    rules: [16, 22],
    v12: ["catalog_not_observed", "unseen_not_green"],
    record: buildCall((c, r) => {
      catalogUnseen(r);
      if (c.effect) c.effect.checkedAt = t(-1);
    }),
    expected: {
      state: "unverified",
      layer: "catalog",
      reasons: [R.CATALOG_NOT_OBSERVED, R.EFFECT_CHECKED_BEFORE_CALL],
    },
  },
  {
    name: "v1.2: catalog unseen: a tool error is still tool_failed (seen evidence), the gap on its path",
    rules: [14, 18],
    v12: ["catalog_not_observed"],
    record: buildCall((c, r) => {
      catalogUnseen(r);
      c.response = { at: t(1_000), kind: "result", isError: true };
    }),
    expected: {
      state: "tool_failed",
      layer: "request",
      reasons: [R.REQUEST_TOOL_ERROR, R.CATALOG_NOT_OBSERVED],
      shadowed: undefined,
    },
  },
  {
    name: "v1.2: catalog unseen: a tool the client was not offered is still a protocol error",
    rules: [12],
    v12: ["catalog_not_observed"],
    record: buildCall((c, r) => {
      catalogUnseen(r);
      c.inCatalog = false;
    }),
    expected: {
      state: "protocol_error",
      reasons: [R.REQUEST_UNKNOWN_TOOL, R.CATALOG_NOT_OBSERVED],
      retrySafe: true,
    },
  },
  {
    name: "v1.2: both unseen, cancelled write with no effect check: effect_unknown, unseen codes before the request's",
    rules: [14, 17],
    v12: ["handshake_not_observed", "catalog_not_observed"],
    record: buildCall((c, r) => {
      onlyCallSeen(r);
      inFlightWrite(c);
      c.cancelledAt = t(2_000);
    }),
    expected: {
      state: "effect_unknown",
      layer: "effect",
      reasons: [R.EFFECT_UNRECONCILED, R.SESSION_NOT_OBSERVED, R.CATALOG_NOT_OBSERVED, R.REQUEST_CANCELLED],
      retrySafe: false,
    },
  },
  {
    name: "v1.2: both unseen, a write in flight: working, with nextCheckAt",
    rules: [15],
    v12: ["handshake_not_observed", "catalog_not_observed"],
    record: buildCall((c, r) => {
      onlyCallSeen(r);
      inFlightWrite(c);
    }),
    observedAt: t(5_000),
    expected: {
      state: "working",
      reasons: [R.REQUEST_IN_FLIGHT, R.SESSION_NOT_OBSERVED, R.CATALOG_NOT_OBSERVED],
      nextCheckAt: t(10_000),
    },
  },
  {
    name: "v1.2: handshake unseen, verifier failed: false_success stands (seen evidence)",
    rules: [21],
    v12: ["handshake_not_observed"],
    record: buildCall((c, r) => {
      handshakeUnseen(r);
      if (c.outcome) c.outcome.verdict = "fail";
    }),
    expected: { state: "false_success", reasons: [R.OUTCOME_VERIFIER_FAILED, R.SESSION_NOT_OBSERVED] },
  },
  {
    name: "v1.2: both unseen, no call: unverified by chain.no_call, the unseen layers on its path",
    rules: [0],
    v12: ["handshake_not_observed", "catalog_not_observed"],
    record: build((r) => {
      onlyCallSeen(r);
      delete r.call;
    }),
    expected: {
      state: "unverified",
      layer: "outcome",
      reasons: [R.CHAIN_NO_CALL, R.SESSION_NOT_OBSERVED, R.CATALOG_NOT_OBSERVED],
      retrySafe: undefined,
    },
  },
  {
    name: "v1.2: handshake unseen, no call, catalog seen but never read: stale_catalog",
    rules: [8],
    v12: ["handshake_not_observed"],
    record: build((r) => {
      handshakeUnseen(r);
      delete r.call;
      delete r.catalog;
    }),
    expected: { state: "stale_catalog", reasons: [R.CATALOG_NOT_READ, R.SESSION_NOT_OBSERVED] },
  },
  {
    name: "v1.2: observed true is the same as absent: healthy",
    rules: [22],
    record: build((r) => {
      r.observed = { handshake: true, catalog: true };
    }),
    expected: { state: "healthy", reasons: [R.OUTCOME_VERIFIED], evidence: "strong" },
  },
  {
    name: "v1.2: a seen handshake without initializedAt is still a finding (rule 5)",
    rules: [5],
    record: build((r) => {
      r.observed = { handshake: true };
      delete r.session.protocol.initializedAt;
    }),
    expected: { state: "incompatible_session", reasons: [R.SESSION_NOT_INITIALIZED] },
  },
];

/** Invariants of §4 that hold for every result, checked on every row. */
function expectWellFormed(result: Classification, record: HealthRecord): void {
  const [deciding] = result.reasons;
  expect(deciding).toBeDefined();
  if (deciding !== undefined) expect(result.layer).toBe(layerOfReason(deciding));
  expect(new Set(result.reasons).size).toBe(result.reasons.length);
  expect(result.evidence !== undefined).toBe(result.state === "healthy");
  expect(result.nextCheckAt !== undefined).toBe(result.state === "working");
  expect(result.retrySafe !== undefined).toBe(record.call !== undefined);
  if (result.state === "effect_unknown") expect(result.retrySafe).toBe(false);
}

describe("classify: contract §3 rules as a table", () => {
  it.each(cases)("$name", ({ record, observedAt, at, expected }) => {
    if (observedAt !== undefined) record.observedAt = observedAt;
    // Every row is a record the schema accepts: the table cannot test impossible input by accident.
    const validation = validateRecord(record);
    expect(validation.ok ? [] : validation.issues).toEqual([]);
    const result = classify(record, at);
    for (const [key, value] of Object.entries(expected)) {
      expect(result[key as keyof Classification], key).toEqual(value);
    }
    expectWellFormed(result, record);
  });

  it("has at least one row per rule 1–22 and for the no-call rule", () => {
    const covered = new Set(cases.flatMap((row) => row.rules));
    const missing = Array.from({ length: 23 }, (_, rule) => rule).filter((rule) => !covered.has(rule));
    expect(missing).toEqual([]);
  });

  it("has at least one row per v1.2 clause", () => {
    const covered = new Set(cases.flatMap((row) => row.v12 ?? []));
    expect([...covered].sort()).toEqual([
      "catalog_not_observed",
      "handshake_not_observed",
      "unseen_not_green",
    ]);
  });

  it("has at least one row per reason code", () => {
    const seen = new Set(cases.flatMap((row) => row.expected.reasons));
    expect(REASON_CODES.filter((code) => !seen.has(code))).toEqual([]);
  });

  it("has a row deciding every state", () => {
    const states = new Set(cases.map((row) => row.expected.state));
    expect(states.size).toBe(10);
  });
});

describe("classify: the `at` argument", () => {
  it("defaults to observedAt", () => {
    const record = buildCall(inFlightWrite);
    record.observedAt = t(5_000);
    expect(classify(record)).toEqual(classify(record, t(5_000)));
  });

  it("accepts an `at` in another zone", () => {
    const record = buildCall(inFlightWrite);
    record.observedAt = t(5_000);
    expect(classify(record, "2026-11-30T11:00:05.000+01:00").state).toBe("working");
  });

  it("rejects an `at` earlier than observedAt with a RangeError", () => {
    expect(() => classify(legacyRecord(), t(59_999))).toThrow(RangeError);
  });

  it("rejects an `at` that is not an RFC 3339 timestamp with a zone", () => {
    expect(() => classify(legacyRecord(), "2026-11-30T10:05:00")).toThrow(RangeError);
    expect(() => classify(legacyRecord(), "yesterday")).toThrow(RangeError);
  });

  it("does not mutate the record", () => {
    const record = buildCall(inFlightWrite);
    const before = structuredClone(record);
    classify(record, t(100_000));
    expect(record).toEqual(before);
  });
});
