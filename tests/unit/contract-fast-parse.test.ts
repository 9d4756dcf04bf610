/**
 * The validation fast path must agree with the zod schema: whatever it accepts, zod accepts
 * with the same (null-free) output, and it accepts every valid record except the spellings
 * it deliberately leaves to zod (URLs that are not plain lower-case http(s)://…).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastParseRecord } from "@/lib/contract/fast-parse";
import { ZHealthRecord } from "@/lib/contract/record";
import { findSecrets } from "@/lib/contract/redaction";
import { findUnstorableStrings } from "@/lib/contract/storable";
import { validateRecord } from "@/lib/contract/validate";
import { recordArb } from "@/tests/support/record-arbitraries";
import { t } from "@/tests/support/record-builders";

type Json = unknown;
type Path = (string | number)[];

/** Values that break some field somewhere, or are valid in some other field. */
const REPLACEMENTS: Json[] = [
  null,
  "",
  "x",
  "X".repeat(300),
  "a b",
  0,
  -1,
  1,
  1.5,
  2 ** 53,
  true,
  {},
  [],
  ["2025-11-25"],
  [{}],
  "2026-11-30T10:00:00",
  "2026-02-30T10:00:00Z",
  t(5_000),
  "2026-11-30T11:00:05+01:00",
  "2025-11-25",
  `sha256:${"c".repeat(64)}`,
  "Team",
  "team",
  401,
  -32602,
  "write",
  "task",
  "error",
  "result",
  "working",
  "completed",
  "failed",
  "pass",
  "llm_judge",
  { code: -32603, class: "internal" },
  { isError: true },
  { status: 401, at: t(0) },
  { status: 403, at: t(0), resource: "https://example.com/mcp" },
  { status: 401, at: t(0), resourceMetadataUrl: "HTTPS://example.com/meta", error: "invalid_token" },
  "https://example.com/mcp",
  "ftp://example.com/mcp",
  // A query is refused in the challenge's URLs (contract §1) and allowed elsewhere: both paths must agree.
  "https://example.com/mcp?page=2",
  // Credentials (assembled at runtime): the fast path must never accept a record holding one.
  ["sk-", "proj-A1b2C3d4E5f6G7h8I9j0"].join(""),
  ["AKIA", "IOSFODNN7EXAMPLE"].join(""),
  ["Bearer ", "abc123DEF456ghi789"].join(""),
  ["https://example.com/?token=", "ghp_", "A".repeat(36)].join(""),
  { at: t(1_000), kind: "error" },
  { id: "task:1", status: "working", updatedAt: t(1) },
  // v1.2 observed: each cross-field rule, and values valid only in some places.
  false,
  { handshake: false },
  { catalog: false },
  { handshake: true, catalog: null },
  { catalog: false, extra: true },
  // What PostgreSQL cannot store, and ids and durations past their bounds.
  "nul\u0000inside",
  "lone \ud800 surrogate",
  "pair \ud83d\ude00 ok",
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "0001-01-01T00:30:00+01:00",
  "..",
  ".",
  365 * 86_400_000,
  365 * 86_400_000 + 1,
  1e15,
];

/** Keys for "add_key": unknown, label-shaped, and a label-shaped credential. */
const NEW_KEYS = ["extra", "observed", "k.1", ["ghs_", "b1".repeat(18)].join(""), "k\u0000", "k\udc00"];

function paths(value: Json, prefix: Path = []): Path[] {
  const found: Path[] = [prefix];
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) found.push(...paths(item, [...prefix, i]));
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) found.push(...paths(item, [...prefix, key]));
  }
  return found;
}

type Mutation = { pathIndex: number; kind: "replace" | "delete" | "add_key"; replacement: number };

function mutate(record: Json, mutations: Mutation[]): Json {
  const copy = JSON.parse(JSON.stringify(record));
  for (const mutation of mutations) {
    const all = paths(copy);
    const path = all[mutation.pathIndex % all.length] ?? [];
    const replacement = REPLACEMENTS[mutation.replacement % REPLACEMENTS.length];
    if (path.length === 0) continue;
    const parent = path
      .slice(0, -1)
      .reduce<Json>((node, key) => (node as Record<string | number, Json>)[key], copy);
    const key = path[path.length - 1] as string | number;
    const container = parent as Record<string | number, Json>;
    if (mutation.kind === "replace") container[key] = structuredClone(replacement);
    else if (mutation.kind === "delete" && !Array.isArray(parent)) delete container[key];
    else if (mutation.kind === "add_key") {
      const target = container[key];
      if (typeof target === "object" && target !== null && !Array.isArray(target)) {
        const newKey = NEW_KEYS[mutation.replacement % NEW_KEYS.length] ?? "extra";
        (target as Record<string, Json>)[newKey] = structuredClone(replacement);
      }
    }
  }
  return copy;
}

const mutationArb = fc.record({
  pathIndex: fc.nat(),
  kind: fc.constantFrom("replace", "delete", "add_key" as const),
  replacement: fc.nat(),
});

function withoutNulls(value: Json): Json {
  return JSON.parse(JSON.stringify(value, (_key, item) => (item === null ? undefined : item)));
}

/** A challenge URL the fast path leaves to zod: not spelled as plain lower-case http(s)://… */
function hasUnusualChallengeUrl(input: Json): boolean {
  const challenge = (input as { session?: { auth?: { challenge?: Record<string, Json> } } })?.session?.auth
    ?.challenge;
  if (typeof challenge !== "object" || challenge === null) return false;
  return [challenge.resource, challenge.resourceMetadataUrl].some(
    (url) => typeof url === "string" && !/^https?:\/\/\S+$/.test(url),
  );
}

// Property runs are CPU-bound; generous timeouts keep them stable when the machine is busy.
describe("fastParseRecord agrees with ZHealthRecord", { timeout: 60_000 }, () => {
  it("accepts every generated valid record, with zod's output", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const fast = fastParseRecord(record);
        expect(fast).toBeDefined();
        expect(fast).toEqual(withoutNulls(ZHealthRecord.parse(record)));
      }),
      { numRuns: 1_000 },
    );
  });

  it("on mutated records: fast accepts ⇒ clean and zod accepts, same output; clean and zod accepts ⇒ fast accepts (bar unusual URLs)", () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(recordArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }), (record, mutations) => {
        const input = mutate(record, mutations);
        const fast = fastParseRecord(input);
        const zod = ZHealthRecord.safeParse(input);
        if (fast !== undefined) {
          expect(findSecrets(input)).toEqual([]);
          expect(findUnstorableStrings(input)).toEqual([]);
          expect(zod.success).toBe(true);
          if (zod.success) expect(fast).toEqual(withoutNulls(zod.data));
        } else if (zod.success && findSecrets(input).length === 0) {
          expect(hasUnusualChallengeUrl(input)).toBe(true);
        }
        if (zod.success) accepted++;
        else rejected++;
      }),
      { numRuns: 3_000 },
    );
    // Both sides of the comparison were exercised.
    expect(accepted).toBeGreaterThan(120);
    expect(rejected).toBeGreaterThan(1_200);
  });

  it("accepts plain challenge URLs and leaves other spellings to zod", () => {
    const record = JSON.parse(JSON.stringify(fc.sample(recordArb, { numRuns: 1, seed: 7 })[0]));
    const challenge = {
      status: 401,
      at: t(0),
      resourceMetadataUrl: "https://example.com/.well-known/oauth-protected-resource",
    };
    record.session.auth = { challenge };
    expect(fastParseRecord(record)).toEqual(withoutNulls(ZHealthRecord.parse(record)));
    for (const spelling of [
      "HTTPS://example.com/mcp",
      " https://example.com/mcp",
      "https://exa\tmple.com/mcp",
    ]) {
      challenge.resourceMetadataUrl = spelling;
      expect(fastParseRecord(record)).toBeUndefined();
      const viaZod = validateRecord(record);
      if (viaZod.ok) expect(viaZod.record.session.auth?.challenge?.resourceMetadataUrl).toBeDefined();
    }
    for (const invalid of ["ftp://example.com/x", "https://", "not a url"]) {
      challenge.resourceMetadataUrl = invalid;
      expect(fastParseRecord(record)).toBeUndefined();
      expect(validateRecord(record).ok).toBe(false);
    }
  });

  it("does not accept input with a foreign prototype", () => {
    const record = JSON.parse(JSON.stringify(fc.sample(recordArb, { numRuns: 1, seed: 8 })[0]));
    expect(fastParseRecord(Object.assign(Object.create({ inherited: 1 }), record))).toBeUndefined();
  });
});
