/** Redaction guard (contract §5): credentials anywhere reject the record and are never echoed. */
import { describe, expect, it } from "vitest";
import { findSecrets, jsonPath, matchSecretPattern, type SecretPatternName } from "@/lib/contract/redaction";
import { validateRecord } from "@/lib/contract/validate";
import { legacyRecord } from "@/tests/support/record-builders";
import { hexOf, join, SAMPLES } from "@/tests/support/secret-samples";

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

describe("validateRecord: a blob in a field named like a credential", () => {
  const withLabels = (labels: Record<string, string>) => ({ ...legacyRecord(), labels });

  it.each([
    ["api_key", "3f9a2c7e1b8d4f6a0c5e9b2d7f1a4c8e"],
    ["client-secret", "Zx8Kq2Lm9Pw4Rt7Vb3Nc6Hd1"],
    ["github.token", "9c4b1e7f2a6d8c3b5e0f1a2b3c4d5e6f"],
    ["serviceToken", "Qm9vYmFyYmF6cXV4MTIzNDU2"],
    ["password", "Tr0ub4dor3xK9mPq2Lw"],
  ])("labels.%s → secret_detected 'credential_assignment' at its path, never echoed", (key, value) => {
    const result = validateRecord(withLabels({ [key]: value }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe("secret_detected");
    expect(result.issues[0]).toEqual({
      path: jsonPath(["labels", key]),
      code: "secret_detected",
      message: "value matches credential pattern 'credential_assignment'",
    });
    expect(JSON.stringify(result)).not.toContain(value);
  });

  it.each([
    ["sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["token_hash", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["etag", "5d41402abc4b2a76b9719d911017c592"],
    ["digest", "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="],
    ["page_token", "CiAKGjBpNDd2Nmp2Zml2cXRiMjVlOTA5MHI5ZXY3"],
    ["token", "rotated"],
    ["secret", "none"],
    ["retry", "3"],
    ["cache_key", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
  ])("labels.%s = %s is accepted", (key, value) => {
    expect(validateRecord(withLabels({ [key]: value })).ok).toBe(true);
  });
});

describe("validateRecord: encoded credentials in fields of a restricted shape", () => {
  it("a schema hash whose hex spells a token → secret_detected at $.catalog.schemaHash", () => {
    const token = join("ghp_", "A1b2C3d4E5f6G7h8I9j0K1L2M3N4"); // 32 bytes: 64 hex digits
    const record = structuredClone(legacyRecord()) as unknown as Record<string, unknown>;
    (record.catalog as Record<string, unknown>).schemaHash = `sha256:${hexOf(token)}`;
    const result = validateRecord(record);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]).toEqual({
      path: "$.catalog.schemaHash",
      code: "secret_detected",
      message: "value matches credential pattern 'github_token'",
    });
  });

  it("a real schema hash is accepted", () => {
    expect(validateRecord(legacyRecord()).ok).toBe(true);
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
