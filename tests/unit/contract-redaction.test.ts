/** Redaction guard (contract §5): credentials anywhere reject the record and are never echoed. */
import { describe, expect, it } from "vitest";
import { findSecrets, jsonPath, matchSecretPattern, type SecretPatternName } from "@/lib/contract/redaction";
import { validateRecord } from "@/lib/contract/validate";
import { legacyRecord } from "@/tests/support/record-builders";
import { SAMPLES } from "@/tests/support/secret-samples";

const ALL = Object.entries(SAMPLES).flatMap(([pattern, values]) =>
  values.map((value) => ({ pattern: pattern as SecretPatternName, value })),
);

/** Where a secret might hide: known free-text fields, unknown fields, keys. */
const PLACEMENTS: {
  name: string;
  path: string;
  place: (record: Record<string, unknown>, secret: string) => void;
}[] = [
  {
    name: "a label value",
    path: "$.labels.team",
    place: (r, secret) => {
      r.labels = { team: secret };
    },
  },
  {
    name: "the tool name",
    path: "$.call.tool",
    place: (r, secret) => {
      (r.call as Record<string, unknown>).tool = secret;
    },
  },
  {
    name: "an outcome receipt",
    path: "$.call.outcome.receipt",
    place: (r, secret) => {
      ((r.call as Record<string, unknown>).outcome as Record<string, unknown>).receipt = secret;
    },
  },
  {
    name: "an unknown top-level field",
    path: "$.headers.authorization",
    place: (r, secret) => {
      r.headers = { authorization: secret };
    },
  },
  {
    name: "an array inside an unknown field",
    path: "$.call.arguments.env[1]",
    place: (r, secret) => {
      (r.call as Record<string, unknown>).arguments = { env: ["PATH=/usr/bin", secret] };
    },
  },
  {
    name: "a label key",
    path: '$.labels["<redacted>"]',
    place: (r, secret) => {
      r.labels = { [secret]: "x" };
    },
  },
];

describe("matchSecretPattern", () => {
  it.each(ALL)("$pattern: recognises a sample", ({ pattern, value }) => {
    expect(matchSecretPattern(value)).toBe(pattern);
    expect(matchSecretPattern(`prefix ${value} suffix`)).toBe(pattern);
  });

  it.each([
    "Bearer",
    "bearer auth",
    "sk-short",
    "task-1234567890abcdefghij",
    "disk-0123456789abcdef0123",
    "AKIA123",
    "ghp_short",
    "xoxb-1",
    "eyJhbGciOiJIUzI1NiJ9",
    "-----BEGIN PUBLIC KEY-----",
    "reports/42@v3",
    `sha256:${"0f".repeat(32)}`,
    "rec:01JDX7K2H5-export",
    "2026-11-30T10:00:00.000Z",
    "https://reports.example.com/.well-known/oauth-protected-resource/mcp",
  ])("does not flag %s", (value) => {
    expect(matchSecretPattern(value)).toBeUndefined();
  });
});

describe("validateRecord: secrets", () => {
  const rows = ALL.flatMap((sample) => PLACEMENTS.map((placement) => ({ ...sample, ...placement })));

  it.each(rows)("$pattern in $name → secret_detected at $path", ({ pattern, value, path, place }) => {
    const record = JSON.parse(JSON.stringify(legacyRecord()));
    place(record, value);
    const result = validateRecord(record);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe("secret_detected");
    expect(result.issues[0]).toEqual({
      path,
      code: "secret_detected",
      message: `value matches credential pattern '${pattern}'`,
    });
    // Never echoed, in whole or in a recognisable part, anywhere in the answer.
    const answer = JSON.stringify(result);
    expect(answer).not.toContain(value);
    expect(answer).not.toContain(value.slice(-8));
  });

  it("reports every secret, then the schema issues, without echoing any of them", () => {
    const record = JSON.parse(JSON.stringify(legacyRecord()));
    record.labels = { a: SAMPLES.jwt[0], b: SAMPLES.aws_access_key_id[0] };
    record.token = SAMPLES.github_token[0];
    const result = validateRecord(record);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe("secret_detected");
    expect(result.issues.map((issue) => [issue.path, issue.code])).toEqual([
      ["$.labels.a", "secret_detected"],
      ["$.labels.b", "secret_detected"],
      ["$.token", "secret_detected"],
      ["$.token", "unrecognized_keys"],
    ]);
    const answer = JSON.stringify(result);
    for (const secret of [SAMPLES.jwt[0], SAMPLES.aws_access_key_id[0], SAMPLES.github_token[0]]) {
      expect(answer).not.toContain(secret);
    }
  });

  it("redacts a credential used as an unknown key in schema issues too", () => {
    const secret = SAMPLES.slack_token[0] ?? "";
    const record = JSON.parse(JSON.stringify(legacyRecord()));
    record.session[secret] = true;
    const result = validateRecord(record);
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(result.ok ? [] : result.issues.map((i) => i.path)).toEqual([
      '$.session["<redacted>"]',
      '$.session["<redacted>"]',
    ]);
  });
});

describe("findSecrets", () => {
  it("returns nothing for a clean record", () => {
    expect(findSecrets(legacyRecord())).toEqual([]);
  });

  it("survives hostile nesting without overflowing the stack", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => findSecrets({ deep })).not.toThrow();
    const result = validateRecord({ ...legacyRecord(), deep });
    expect(result.ok).toBe(false);
  });
});

describe("jsonPath", () => {
  it.each([
    [[], "$"],
    [["call", "progress", 2, "token"], "$.call.progress[2].token"],
    [["labels", "team name"], '$.labels["team name"]'],
    [["labels", "k.1"], '$.labels["k.1"]'],
  ] as const)("%j → %s", (segments, expected) => {
    expect(jsonPath(segments)).toBe(expected);
  });
});
