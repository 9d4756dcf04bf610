/** The redaction guard's pattern table (issue 17 item 8): one positive and one look-alike per pattern, at least. */
import { describe, expect, it } from "vitest";
import { matchSecretPattern, SECRET_PATTERNS, type SecretPatternName } from "@/lib/contract/redaction";
import { percentDecode } from "@/lib/contract/secret-matching";
import { validateRecord } from "@/lib/contract/validate";
import { legacyRecord } from "@/tests/support/record-builders";
import { DISGUISED, EVERYDAY_VALUES, join, LOOK_ALIKES, SAMPLES } from "@/tests/support/secret-samples";

const PATTERNS = Object.keys(SECRET_PATTERNS) as SecretPatternName[];
const rows = <T>(table: Record<SecretPatternName, T[]>) =>
  PATTERNS.flatMap((pattern) => table[pattern].map((value) => ({ pattern, value })));

describe("the pattern table", () => {
  it.each(PATTERNS)("%s has a sample to refuse and a look-alike to allow", (pattern) => {
    expect(SAMPLES[pattern].length).toBeGreaterThan(0);
    expect(LOOK_ALIKES[pattern].length).toBeGreaterThan(0);
  });

  it.each(rows(SAMPLES))("refuses $pattern: $value", ({ pattern, value }) => {
    expect(matchSecretPattern(value)).toBe(pattern);
    expect(matchSecretPattern(`see ${value} here`)).toBe(pattern);
  });

  it.each(DISGUISED)("refuses $pattern disguised by $how", ({ pattern, value }) => {
    expect(matchSecretPattern(value)).toBe(pattern);
  });

  it.each(rows(LOOK_ALIKES))("allows a look-alike of $pattern: $value", ({ value }) => {
    expect(matchSecretPattern(value)).toBeUndefined();
  });

  it.each(EVERYDAY_VALUES)("allows an everyday value: %s", (value) => {
    expect(matchSecretPattern(value)).toBeUndefined();
  });
});

describe("answers remembered for strings met again", () => {
  const samples = rows(SAMPLES);
  const lookAlikes = rows(LOOK_ALIKES);

  it("gives every sample and look-alike the same answer a second and a third time", () => {
    for (let pass = 0; pass < 3; pass++) {
      for (const { pattern, value } of samples) expect(matchSecretPattern(value)).toBe(pattern);
      for (const { value } of lookAlikes) expect(matchSecretPattern(value)).toBeUndefined();
    }
  });

  it("still answers right after thousands of unique strings have filled and emptied what it remembers", () => {
    for (let i = 0; i < 25_000; i++) expect(matchSecretPattern(`rec:unique-record-${i}`)).toBeUndefined();
    for (const { pattern, value } of samples) expect(matchSecretPattern(value)).toBe(pattern);
    for (const { value } of lookAlikes) expect(matchSecretPattern(value)).toBeUndefined();
  });

  it("scans a long string (past what it remembers) every time", () => {
    const token = SAMPLES.github_token[0] as string;
    const long = `${"prose ".repeat(60)}${token}`;
    expect(long.length).toBeGreaterThan(256);
    expect(matchSecretPattern(long)).toBe("github_token");
    expect(matchSecretPattern(long)).toBe("github_token");
    expect(matchSecretPattern(`${"prose ".repeat(60)}nothing here`)).toBeUndefined();
  });
});

describe("percentDecode", () => {
  it.each([
    ["a%20b", "a b"],
    ["%E2%80%8B", "\u200B"],
    ["100% done", "100% done"],
    ["%E0%A4%A", "%E0%A4%A"],
    ["%C0%2F%41", "%C0/A"],
    ["%zz%4", "%zz%4"],
  ])("%s → %s, never throwing on a bad escape", (input, expected) => {
    expect(percentDecode(input)).toBe(expected);
  });

  it("stops after a bounded number of rounds", () => {
    let value = join("Bearer ", "abc123DEF456ghi789");
    for (let i = 0; i < 20; i++) value = encodeURIComponent(value);
    expect(() => matchSecretPattern(value)).not.toThrow();
  });
});

describe("hostile input", () => {
  const huge = 200_000;
  it.each([
    ["a Bearer followed by short words", `Bearer ${"ab ".repeat(huge / 3)}`],
    ["a JWT header followed by whitespace", `eyJab${" ".repeat(huge)}`],
    ["many JWT-like parts", "eyJab.".repeat(huge / 6)],
    ["a long userinfo without @", `//${"a".repeat(huge)}:${"b".repeat(huge)}`],
    ["many SAS-like parameters without sig", `sv=1${"&x=1".repeat(huge / 4)}`],
    ["only SAS version parameters", "&sv=1".repeat(huge / 5)],
    ["SAS parameters with placeholder signatures", "?sv=1&sig=".repeat(huge / 10)],
    ["many Basic candidates that are not credentials", `basic ${btoa("abc")} `.repeat(huge / 11)],
    ["a long Basic candidate", `Basic ${"A".repeat(huge)}`],
    ["a long AWS secret name followed by spaces", `aws_secret_access_key${" ".repeat(huge)}`],
    ["nested percent escapes", "%25".repeat(huge / 3)],
    ["invisible characters", "\u200B".repeat(huge)],
    ["a long base64 run of text", btoa("A".repeat((huge / 4) * 3))],
    ["many short base64 runs", "QUFBQUFBQUFBQUFBQUFB ".repeat(huge / 21)],
    ["a long hex run of text", "41".repeat(huge / 2)],
    ["a credential name before a long value", `api_key: ${"a1B".repeat(huge / 3)}`],
    ["many credential names", "token=".repeat(huge / 6)],
    ["credential names with separators and no value", "password: ".repeat(huge / 10)],
    ["fullwidth text", "\uFF21".repeat(huge)],
    ["JWT-like prefixes", "ewo.eyA.".repeat(huge / 8)],
  ])("answers quickly for %s", (_, value) => {
    const started = performance.now();
    matchSecretPattern(value);
    // Linear scans of these take milliseconds; a quadratic one takes minutes.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("validateRecord: disguised and new credentials", () => {
  it.each(DISGUISED)(
    "$pattern disguised by $how in a label → secret_detected, never echoed",
    ({ pattern, value }) => {
      const record = structuredClone(legacyRecord()) as Record<string, unknown>;
      record.labels = { note: value };
      const result = validateRecord(record);
      expect(result).toEqual({
        ok: false,
        code: "secret_detected",
        issues: [
          {
            path: "$.labels.note",
            code: "secret_detected",
            message: `value matches credential pattern '${pattern}'`,
          },
        ],
      });
      const answer = JSON.stringify(result);
      expect(answer).not.toContain(value);
      expect(answer).not.toContain(decodeURIComponent(value));
    },
  );

  it.each(rows(SAMPLES))(
    "$pattern as the tool name → secret_detected at $.call.tool",
    ({ pattern, value }) => {
      const record = structuredClone(legacyRecord()) as Record<string, unknown>;
      (record.call as Record<string, unknown>).tool = value;
      const result = validateRecord(record);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.code).toBe("secret_detected");
      expect(result.issues[0]).toEqual({
        path: "$.call.tool",
        code: "secret_detected",
        message: `value matches credential pattern '${pattern}'`,
      });
    },
  );
});

describe("validateRecord: the challenge's URLs carry no query string", () => {
  const withChallenge = (field: "resource" | "resourceMetadataUrl", url: string) => {
    const record = structuredClone(legacyRecord()) as Record<string, unknown>;
    const session = record.session as Record<string, unknown>;
    session.auth = { challenge: { status: 401, at: "2026-11-30T10:00:00.000Z", [field]: url } };
    return record;
  };

  it.each([
    ["resource", "https://reports.example.com/mcp?page=2"],
    ["resource", "https://reports.example.com/mcp?"],
    ["resource", "https://reports.example.com/mcp#section"],
    ["resourceMetadataUrl", "https://reports.example.com/.well-known/oauth-protected-resource?tenant=a"],
  ] as const)("%s %s → invalid_record url_has_query at its path", (field, url) => {
    const result = validateRecord(withChallenge(field, url));
    expect(result).toEqual({
      ok: false,
      code: "invalid_record",
      issues: [
        {
          path: `$.session.auth.challenge.${field}`,
          code: "url_has_query",
          message: "expected a URL without a query string or fragment",
        },
      ],
    });
  });

  it.each(["resource", "resourceMetadataUrl"] as const)(
    "a credential in the %s query → secret_detected first, never echoed",
    (field) => {
      const secret = join("abc", "123DEF456");
      const result = validateRecord(
        withChallenge(field, `https://reports.example.com/mcp?access_token=${secret}`),
      );
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.code).toBe("secret_detected");
      expect(result.issues.map(({ path, code }) => [path, code])).toEqual([
        [`$.session.auth.challenge.${field}`, "secret_detected"],
        [`$.session.auth.challenge.${field}`, "url_has_query"],
      ]);
      expect(JSON.stringify(result)).not.toContain(secret);
    },
  );

  it.each(["resource", "resourceMetadataUrl"] as const)("a plain %s is accepted", (field) => {
    expect(validateRecord(withChallenge(field, "https://reports.example.com/mcp")).ok).toBe(true);
  });
});
