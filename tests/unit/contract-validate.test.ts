/** validateRecord: every kind of bad input, and what it gets back (contract §1, §5). */
import { describe, expect, it } from "vitest";
import { validateRecord } from "@/lib/contract/validate";
import { legacyRecord, modernRecord, t } from "@/tests/support/record-builders";

type Json = Record<string, unknown>;

/** A plain-JSON copy of the legacy base record, changed by `change`. */
function input(
  change: (record: Json & { session: Json; call: Json; catalog: Json }) => void = () => {},
): unknown {
  const record = JSON.parse(JSON.stringify(legacyRecord()));
  change(record);
  return record;
}

type Case = {
  name: string;
  input: unknown;
  /** Each expected issue by path and code (the message is checked separately). */
  issues: { path: string; code: string }[];
};

const cases: Case[] = [
  { name: "not an object", input: "a record", issues: [{ path: "$", code: "invalid_type" }] },
  { name: "null", input: null, issues: [{ path: "$", code: "invalid_type" }] },
  { name: "an array", input: [], issues: [{ path: "$", code: "invalid_type" }] },
  {
    name: "unknown top-level field",
    input: input((r) => {
      r.prompt = "summarise the board memo";
    }),
    issues: [{ path: "$.prompt", code: "unrecognized_keys" }],
  },
  {
    name: "unknown fields at several depths, one issue each",
    input: input((r) => {
      r.session.token = "opaque";
      (r.call.response as Json).content = [{ type: "text", text: "done" }];
      r.call.arguments = { title: "Q4" };
    }),
    issues: [
      { path: "$.session.token", code: "unrecognized_keys" },
      { path: "$.call.response.content", code: "unrecognized_keys" },
      { path: "$.call.arguments", code: "unrecognized_keys" },
    ],
  },
  {
    name: "unknown field inside a progress entry",
    input: input((r) => {
      r.call.progress = [{ at: t(1), token: "pt-1", progress: 1, message: "halfway" }];
    }),
    issues: [{ path: "$.call.progress[0].message", code: "unrecognized_keys" }],
  },
  {
    name: "missing required field",
    input: input((r) => {
      delete r.recordId;
    }),
    issues: [{ path: "$.recordId", code: "invalid_type" }],
  },
  {
    name: "null for a required field",
    input: input((r) => {
      r.session = null as never;
    }),
    issues: [{ path: "$.session", code: "invalid_type" }],
  },
  {
    name: "wrong schemaVersion",
    input: input((r) => {
      r.schemaVersion = 2;
    }),
    issues: [{ path: "$.schemaVersion", code: "invalid_value" }],
  },
  {
    name: "id with a space",
    input: input((r) => {
      r.chainId = "chain 1";
    }),
    issues: [{ path: "$.chainId", code: "invalid_format" }],
  },
  {
    name: "id longer than 128",
    input: input((r) => {
      r.recordId = "r".repeat(129);
    }),
    issues: [{ path: "$.recordId", code: "invalid_format" }],
  },
  ...[
    "2026-11-30T10:00:00",
    "2026-11-30",
    "2026-11-30 10:00:00Z",
    "2026-02-30T10:00:00Z",
    "2026-11-30T24:00:00Z",
    "1796032800000",
  ].map(
    (observedAt): Case => ({
      name: `timestamp ${observedAt} is rejected`,
      input: input((r) => {
        r.observedAt = observedAt;
      }),
      issues: [{ path: "$.observedAt", code: "invalid_timestamp" }],
    }),
  ),
  {
    name: "timestamp without a zone deep in the record",
    input: input((r) => {
      r.call.progress = [{ at: "2026-11-30T10:00:01.000", token: "pt-1", progress: 1 }];
    }),
    issues: [{ path: "$.call.progress[0].at", code: "invalid_timestamp" }],
  },
  {
    name: "label key not matching the pattern",
    input: input((r) => {
      r.labels = { Team: "reports", "9env": "prod" };
    }),
    issues: [
      { path: "$.labels.Team", code: "invalid_key" },
      { path: '$.labels["9env"]', code: "invalid_key" },
    ],
  },
  {
    name: "label value over 256 characters",
    input: input((r) => {
      r.labels = { team: "x".repeat(257) };
    }),
    issues: [{ path: "$.labels.team", code: "too_big" }],
  },
  {
    name: "more than 16 labels",
    input: input((r) => {
      r.labels = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"]));
    }),
    issues: [{ path: "$.labels", code: "too_many_labels" }],
  },
  {
    name: "kind error without error",
    input: input((r) => {
      r.call.response = { at: t(1_000), kind: "error" };
    }),
    issues: [{ path: "$.call.response.error", code: "response_error_mismatch" }],
  },
  {
    name: "kind result with an error",
    input: input((r) => {
      r.call.response = { at: t(1_000), kind: "result", error: { code: -32603, class: "internal" } };
    }),
    issues: [{ path: "$.call.response.error", code: "response_error_mismatch" }],
  },
  {
    name: "task without resultType task",
    input: input((r) => {
      r.call.task = { id: "task:1", status: "working", updatedAt: t(1_000) };
    }),
    issues: [{ path: "$.call.task", code: "task_without_task_result" }],
  },
  {
    name: "inactivityMs greater than deadlineMs",
    input: input((r) => {
      r.call.inactivityMs = 30_001;
    }),
    issues: [{ path: "$.call.inactivityMs", code: "inactivity_exceeds_deadline" }],
  },
  {
    name: "enum value outside the set",
    input: input((r) => {
      r.session.transport = "websocket";
    }),
    issues: [{ path: "$.session.transport", code: "invalid_value" }],
  },
  {
    name: "empty clientSupportedVersions",
    input: input((r) => {
      (r.session.protocol as Json).clientSupportedVersions = [];
    }),
    issues: [{ path: "$.session.protocol.clientSupportedVersions", code: "too_small" }],
  },
  {
    name: "version not YYYY-MM-DD",
    input: input((r) => {
      (r.session.protocol as Json).acceptedVersion = "v2025.11";
    }),
    issues: [{ path: "$.session.protocol.acceptedVersion", code: "invalid_format" }],
  },
  {
    name: "schemaHash in upper case",
    input: input((r) => {
      r.catalog.schemaHash = `sha256:${"AB".repeat(32)}`;
    }),
    issues: [{ path: "$.catalog.schemaHash", code: "invalid_format" }],
  },
  {
    name: "requestId neither string nor integer",
    input: input((r) => {
      r.call.requestId = 1.5;
    }),
    issues: [{ path: "$.call.requestId", code: "invalid_union" }],
  },
  {
    name: "deadlineMs zero and pages negative",
    input: input((r) => {
      r.call.deadlineMs = 0;
      r.call.inactivityMs = 0;
      r.catalog.pages = -1;
    }),
    issues: [
      { path: "$.catalog.pages", code: "too_small" },
      { path: "$.call.deadlineMs", code: "too_small" },
      { path: "$.call.inactivityMs", code: "too_small" },
    ],
  },
  {
    name: "challenge with a non-http URL and an unexpected status",
    input: input((r) => {
      r.session.auth = {
        challenge: { status: 500, at: t(0), resourceMetadataUrl: "ftp://example.com/meta" },
      };
    }),
    issues: [
      { path: "$.session.auth.challenge.status", code: "invalid_union" },
      { path: "$.session.auth.challenge.resourceMetadataUrl", code: "invalid_format" },
    ],
  },
  {
    name: "receipt longer than 256",
    input: input((r) => {
      (r.call.effect as Json).receipt = "r".repeat(257);
    }),
    issues: [{ path: "$.call.effect.receipt", code: "too_big" }],
  },
  {
    name: "observed.catalog false with a catalog",
    input: input((r) => {
      r.observed = { catalog: false };
    }),
    issues: [{ path: "$.observed.catalog", code: "catalog_not_observed_but_present" }],
  },
  {
    name: "observed.handshake false with initializedAt",
    input: input((r) => {
      r.observed = { handshake: false };
    }),
    issues: [{ path: "$.observed.handshake", code: "handshake_not_observed_but_initialized" }],
  },
  {
    name: "both observed rules broken at once",
    input: input((r) => {
      r.observed = { handshake: false, catalog: false };
    }),
    issues: [
      { path: "$.observed.catalog", code: "catalog_not_observed_but_present" },
      { path: "$.observed.handshake", code: "handshake_not_observed_but_initialized" },
    ],
  },
  {
    name: "observed field that is not a boolean",
    input: input((r) => {
      r.observed = { handshake: "no" };
    }),
    issues: [{ path: "$.observed.handshake", code: "invalid_type" }],
  },
  {
    name: "unknown field inside observed",
    input: input((r) => {
      r.observed = { callResult: false };
    }),
    issues: [{ path: "$.observed.callResult", code: "unrecognized_keys" }],
  },
  {
    name: "observed that is not an object",
    input: input((r) => {
      r.observed = false;
    }),
    issues: [{ path: "$.observed", code: "invalid_type" }],
  },
];

describe("validateRecord: invalid input", () => {
  it.each(cases)("$name", ({ input: record, issues }) => {
    const result = validateRecord(record);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe("invalid_record");
    expect(result.issues.map(({ path, code }) => ({ path, code }))).toEqual(issues);
    for (const issue of result.issues) expect(issue.message.length).toBeGreaterThan(0);
  });

  it("never echoes a received value in a message", () => {
    const sentinel = "SENTINEL_VALUE_7";
    const record = input((r) => {
      r.chainId = `${sentinel} x`;
      r.observedAt = sentinel;
      r.session.transport = sentinel;
      r.schemaVersion = sentinel;
      r.call.requestId = { sentinel };
      r.call.sideEffect = sentinel;
      r.labels = { Bad: sentinel, ok: sentinel.repeat(40) };
      (r.session.protocol as Json).era = sentinel;
    });
    const result = validateRecord(record);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.length).toBeGreaterThanOrEqual(8);
    for (const issue of result.issues) expect(issue.message).not.toContain(sentinel);
  });
});

describe("validateRecord: valid input", () => {
  it("accepts both base records", () => {
    expect(validateRecord(legacyRecord()).ok).toBe(true);
    expect(validateRecord(modernRecord()).ok).toBe(true);
  });

  it("accepts exactly 16 labels, inactivityMs equal to deadlineMs, and zoned offsets", () => {
    const record = input((r) => {
      r.labels = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k.${i}_-x`, "v"]));
      r.call.inactivityMs = 30_000;
      r.observedAt = "2026-11-30T11:01:00.000+01:00";
      (r.call.outcome as Json).checkedAt = "2026-11-30T10:00:30.123456789Z";
    });
    const result = validateRecord(record);
    expect(result.ok ? [] : result.issues).toEqual([]);
  });

  it("treats null optional fields as absent and removes them", () => {
    const record = input((r) => {
      r.labels = null as never;
      r.call.operationKey = null;
      r.call.task = null;
      (r.call.response as Json).error = null;
      (r.session.protocol as Json).serverSupportedVersions = null;
    });
    const result = validateRecord(record);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect("labels" in result.record).toBe(false);
    expect(result.record.call && "task" in result.record.call).toBe(false);
    expect(result.record.call?.response && "error" in result.record.call.response).toBe(false);
  });

  it("accepts observed (v1.2): unseen layers without their evidence, null and true as seen", () => {
    const unseen = input((r) => {
      r.catalog = undefined as never;
      delete (r.session.protocol as Json).initializedAt;
      r.observed = { handshake: false, catalog: false };
    });
    const result = validateRecord(unseen);
    expect(result.ok ? result.record.observed : result.issues).toEqual({ handshake: false, catalog: false });
    for (const observed of [
      {},
      null,
      { handshake: true, catalog: true },
      { handshake: null, catalog: null },
    ]) {
      const seen = validateRecord(
        input((r) => {
          r.observed = observed;
        }),
      );
      expect(seen.ok ? [] : seen.issues).toEqual([]);
    }
    // A seen layer may still be absent: that is a finding (rules 3–11), not a validation error.
    const seenButAbsent = validateRecord(
      input((r) => {
        r.catalog = undefined as never;
        r.observed = { catalog: true };
      }),
    );
    expect(seenButAbsent.ok).toBe(true);
  });

  it("returns a copy: the input is not modified", () => {
    const record = input((r) => {
      r.call.task = null;
    }) as Json & { call: Json };
    validateRecord(record);
    expect(record.call.task).toBeNull();
  });
});
