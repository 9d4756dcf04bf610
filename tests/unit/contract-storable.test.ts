/**
 * What a record may hold so that it can be stored and read back: no NUL or unpaired surrogate in any string or key,
 * timestamps in years 0001–9999, durations of at most a year, ids a URL can carry. Each case is checked on both
 * validation paths (the fast path must not accept it; `validateRecord` names it with its path and code).
 */
import { describe, expect, it } from "vitest";
import { fastParseRecord } from "@/lib/contract/fast-parse";
import { MAX_DURATION_MS } from "@/lib/contract/limits";
import type { HealthRecordInput } from "@/lib/contract/record";
import { findUnstorableStrings, isStorableString } from "@/lib/contract/storable";
import { parseStorableTimestamp } from "@/lib/contract/timestamp";
import { validateRecord } from "@/lib/contract/validate";
import { legacyRecord, modernRecord } from "@/tests/support/record-builders";

// biome-ignore lint/suspicious/noExplicitAny: the cases reach into any field of a record, valid or not.
type Mutable = Record<string, any>;

function withChange(change: (record: Mutable) => void, base = legacyRecord()): unknown {
  const record = structuredClone(base) as Mutable;
  change(record);
  return record;
}

function expectRefused(input: unknown, path: string, code: string) {
  expect(fastParseRecord(input)).toBeUndefined();
  const result = validateRecord(input);
  expect(result.ok).toBe(false);
  if (!result.ok) {
    expect(result.code).toBe("invalid_record");
    expect(result.issues).toContainEqual(expect.objectContaining({ path, code }));
  }
}

describe("isStorableString", () => {
  it.each([
    ["plain text", "reports-mcp 2.3.1", true],
    ["an emoji (a surrogate pair)", "done \u{1F600}", true],
    ["empty", "", true],
    ["NUL", "a\u0000b", false],
    ["only NUL", "\u0000", false],
    ["a lone high surrogate", "a\uD800b", false],
    ["a lone high surrogate at the end", "ab\uDBFF", false],
    ["a lone low surrogate", "\uDC00ab", false],
    ["two high surrogates", "\uD800\uD800\uDC00", false],
    ["reversed pair", "\uDE00\uD83D", false],
  ])("%s → %s", (_, text, storable) => {
    expect(isStorableString(text)).toBe(storable);
  });

  it("finds keys and values at any depth, by JSON path, never echoing them", () => {
    const hits = findUnstorableStrings({
      a: ["ok", { "k\u0000": "fine", deep: [[["x\uD800"]]] }],
      "\uDFFF": 1,
    });
    expect(hits).toEqual([
      { path: '$.a[1]["k\\u0000"]', where: "key" },
      { path: "$.a[1].deep[0][0][0]", where: "value" },
      { path: '$["\\udfff"]', where: "key" },
    ]);
  });
});

describe("validateRecord refuses strings PostgreSQL cannot store", () => {
  const NUL = "x\u0000y";
  const LONE = "x\uD83Dy";
  it.each<[string, (r: Mutable) => void, string]>([
    [
      "session.capabilities.server",
      (r) => (r.session.capabilities.server = ["tools", NUL]),
      "$.session.capabilities.server[1]",
    ],
    [
      "capabilities.required.client",
      (r) => (r.session.capabilities.required.client = [LONE]),
      "$.session.capabilities.required.client[0]",
    ],
    ["client name", (r) => (r.session.client.name = NUL), "$.session.client.name"],
    ["server version", (r) => (r.session.server.version = LONE), "$.session.server.version"],
    ["a label value", (r) => (r.labels = { team: NUL }), "$.labels.team"],
    ["a label key", (r) => (r.labels = { "te\u0000am": "x" }), '$.labels["te\\u0000am"]'],
    ["an unknown key with a lone surrogate", (r) => (r.session["\uDC01"] = 1), '$.session["\\udc01"]'],
    ["the tool name", (r) => (r.call.tool = LONE), "$.call.tool"],
    ["a string requestId", (r) => (r.call.requestId = NUL), "$.call.requestId"],
    ["a progress token", (r) => (r.call.progressToken = LONE), "$.call.progressToken"],
    ["the effect receipt", (r) => (r.call.effect.receipt = NUL), "$.call.effect.receipt"],
    ["the outcome receipt", (r) => (r.call.outcome.receipt = LONE), "$.call.outcome.receipt"],
    ["an unknown field's value", (r) => (r.call.extra = { nested: [NUL] }), "$.call.extra.nested[0]"],
  ])("in %s → unstorable_string at its path", (_, change, path) => {
    expectRefused(withChange(change), path, "unstorable_string");
  });

  it("in an error class and a challenge URL", () => {
    expectRefused(
      withChange((r) => {
        r.call.response = { at: r.call.startedAt, kind: "error", error: { code: -32603, class: NUL } };
        delete r.call.effect;
        delete r.call.outcome;
      }),
      "$.call.response.error.class",
      "unstorable_string",
    );
    expectRefused(
      withChange((r) => {
        r.session.auth = {
          challenge: { status: 401, at: r.observedAt, resource: `https://example.com/${NUL}` },
        };
      }),
      "$.session.auth.challenge.resource",
      "unstorable_string",
    );
  });

  it("reports each string once, even where the schema also checks it", () => {
    const result = validateRecord(withChange((r) => (r.session.client.name = NUL)));
    expect(result).toEqual({
      ok: false,
      code: "invalid_record",
      issues: [{ path: "$.session.client.name", code: "unstorable_string", message: expect.any(String) }],
    });
  });

  it("accepts surrogate pairs (emoji) in free text", () => {
    const record = withChange((r) => (r.session.client.name = "agent \u{1F916}"));
    expect(fastParseRecord(record)).toBeDefined();
    expect(validateRecord(record).ok).toBe(true);
  });
});

describe("timestamps must lie in years 0001 to 9999 (UTC)", () => {
  it.each([
    ["0001-01-01T00:00:00Z", true],
    ["9999-12-31T23:59:59.999Z", true],
    ["0000-01-01T00:00:00Z", false],
    ["0000-12-31T23:59:59.999Z", false],
    ["0001-01-01T00:30:00+01:00", false],
    ["9999-12-31T23:59:59-01:00", false],
    ["2026-11-30T10:00:00.000Z", true],
  ])("%s storable: %s", (value, ok) => {
    expect(parseStorableTimestamp(value) !== undefined).toBe(ok);
  });

  it.each<[string, (r: Mutable, at: string) => void, string]>([
    ["observedAt", (r, at) => (r.observedAt = at), "$.observedAt"],
    ["initializedAt", (r, at) => (r.session.protocol.initializedAt = at), "$.session.protocol.initializedAt"],
    ["catalog.refreshedAt", (r, at) => (r.catalog.refreshedAt = at), "$.catalog.refreshedAt"],
    ["catalog.listChangedAt", (r, at) => (r.catalog.listChangedAt = [at]), "$.catalog.listChangedAt[0]"],
    ["call.startedAt", (r, at) => (r.call.startedAt = at), "$.call.startedAt"],
    ["call.cancelledAt", (r, at) => (r.call.cancelledAt = at), "$.call.cancelledAt"],
    ["response.at", (r, at) => (r.call.response.at = at), "$.call.response.at"],
    ["progress.at", (r, at) => (r.call.progress = [{ at, token: 1, progress: 1 }]), "$.call.progress[0].at"],
    ["effect.checkedAt", (r, at) => (r.call.effect.checkedAt = at), "$.call.effect.checkedAt"],
    ["outcome.checkedAt", (r, at) => (r.call.outcome.checkedAt = at), "$.call.outcome.checkedAt"],
    [
      "auth.challenge.at",
      (r, at) => (r.session.auth = { challenge: { status: 401, at } }),
      "$.session.auth.challenge.at",
    ],
    ["auth.resolvedAt", (r, at) => (r.session.auth = { resolvedAt: at }), "$.session.auth.resolvedAt"],
  ])("%s in year 0000 → timestamp_out_of_range", (_, change, path) => {
    expectRefused(
      withChange((r) => change(r, "0000-06-01T00:00:00Z")),
      path,
      "timestamp_out_of_range",
    );
  });

  it("task timestamps too", () => {
    for (const field of ["updatedAt", "polledAt"]) {
      const record = withChange((r) => {
        r.call.response = { at: r.call.startedAt, kind: "result", resultType: "task" };
        r.call.task = {
          id: "task:1",
          status: "working",
          updatedAt: r.call.startedAt,
          [field]: "0000-01-01T00:00:00Z",
        };
      }, modernRecord());
      expectRefused(record, `$.call.task.${field}`, "timestamp_out_of_range");
    }
  });

  it("a year past 9999 is not a timestamp at all (RFC 3339 has four-digit years)", () => {
    expectRefused(
      withChange((r) => (r.observedAt = "+010000-01-01T00:00:00Z")),
      "$.observedAt",
      "invalid_timestamp",
    );
  });
});

describe("durations are bounded", () => {
  it.each<[string, number, number, string, string]>([
    ["deadlineMs near 1e15", 1e15, 1_000, "$.call.deadlineMs", "too_big"],
    ["deadlineMs one ms past a year", MAX_DURATION_MS + 1, 1_000, "$.call.deadlineMs", "too_big"],
    ["inactivityMs past a year", 1e15, 1e15, "$.call.inactivityMs", "too_big"],
    ["deadlineMs negative", -1, 1, "$.call.deadlineMs", "too_small"],
    ["deadlineMs zero", 0, 1, "$.call.deadlineMs", "too_small"],
    ["deadlineMs fractional", 1.5, 1, "$.call.deadlineMs", "invalid_type"],
    ["inactivityMs fractional", 10, 0.5, "$.call.inactivityMs", "invalid_type"],
  ])("%s → %s", (_, deadlineMs, inactivityMs, path, code) => {
    expectRefused(
      withChange((r) => {
        r.call.deadlineMs = deadlineMs;
        r.call.inactivityMs = inactivityMs;
      }),
      path,
      code,
    );
  });

  it("accepts exactly one year", () => {
    const record = withChange((r) => {
      r.call.deadlineMs = MAX_DURATION_MS;
      r.call.inactivityMs = MAX_DURATION_MS;
    });
    expect(fastParseRecord(record)).toBeDefined();
    expect(validateRecord(record).ok).toBe(true);
  });

  it("refuses a deadline that would fall after 9999-12-31 (deadline_out_of_range)", () => {
    const late = withChange((r) => {
      r.call.startedAt = "9999-12-31T00:00:00Z";
      r.call.deadlineMs = 86_400_000;
      r.call.inactivityMs = 1_000;
    });
    expectRefused(late, "$.call.deadlineMs", "deadline_out_of_range");
    const justInside = withChange((r) => {
      r.call.startedAt = "9999-12-31T00:00:00Z";
      r.call.deadlineMs = 86_399_998;
      r.call.inactivityMs = 1_000;
    });
    expect(validateRecord(justInside).ok).toBe(true);
  });
});

describe('ids "." and ".." are refused', () => {
  it.each<[string, (r: Mutable, id: string) => void, string]>([
    ["chainId", (r, id) => (r.chainId = id), "$.chainId"],
    ["recordId", (r, id) => (r.recordId = id), "$.recordId"],
    ["session.id", (r, id) => (r.session.id = id), "$.session.id"],
    ["call.operationKey", (r, id) => (r.call.operationKey = id), "$.call.operationKey"],
  ])("%s", (_, change, path) => {
    for (const id of [".", ".."])
      expectRefused(
        withChange((r) => change(r, id)),
        path,
        "unaddressable_id",
      );
  });

  it("other dotted ids stay valid", () => {
    const record = withChange((r) => (r.chainId = "..."));
    expect(validateRecord(record as HealthRecordInput).ok).toBe(true);
  });
});
