// A bounded, seeded fuzz run against the real app (issue 17 item 2): a few hundred malformed requests of each class
// — records, path ids, cursors, query parameters, dashboard bodies. None may be a 5xx; every refusal is a 4xx with a
// machine-readable code and an issue located by a JSON path; nothing refused is stored.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { expectLocatedClientError, PATH_ENDPOINTS, pathOf } from "@/tests/support/bad-input";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";
import { recordArb } from "@/tests/support/record-arbitraries";
import { parseCursor } from "@/lib/dashboard/cursor";

const SEED = 17;
const RUNS = 200;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let key: string;
let cookie: string;

beforeAll(async () => {
  db = await createTestDatabase();
  key = await createTestKey(db.url, "fuzz", ["ingest", "read"]);
  app = await startApp(db.url);
  cookie = await adminCookie(app.baseUrl);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

const api = () => apiClient(app.baseUrl, key);
const run = <T>(arb: fc.Arbitrary<T>, check: (value: T) => Promise<void>) =>
  fc.assert(fc.asyncProperty(arb, check), { numRuns: RUNS, seed: SEED, endOnFailure: true });

/** NUL or an unpaired surrogate, spliced into `text` at `at`. */
const poisonArb = fc.constantFrom("\u0000", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uDE00\uD83D");
const splice = (text: string, at: number, poison: string) => {
  const i = at % (text.length + 1);
  return text.slice(0, i) + poison + text.slice(i);
};

type Json = unknown;
type Path = (string | number)[];

/** Every path in `value` that holds a string, and every path that is an object key. */
function stringPaths(value: Json, prefix: Path = []): { path: Path; key: boolean }[] {
  if (typeof value === "string") return [{ path: prefix, key: false }];
  if (typeof value !== "object" || value === null) return [];
  const entries: [string | number, Json][] = Array.isArray(value)
    ? [...value.entries()]
    : Object.entries(value);
  return entries.flatMap(([k, item]) => [
    ...(typeof k === "string" ? [{ path: [...prefix, k], key: true }] : []),
    ...stringPaths(item, [...prefix, k]),
  ]);
}

type Node = Record<string | number, Json>;

/** The object holding `path`'s last segment (undefined when an ancestor is missing). */
function parentOf(root: Json, path: Path): Node {
  return path.slice(0, -1).reduce<Json>((node, k) => (node as Node | undefined)?.[k], root) as Node;
}

/** Splices a poison into one string or key of `value`, chosen by `pick`. */
function poisonOne(value: Json, pick: number, at: number, poison: string): Json {
  const copy = structuredClone(value);
  const targets = stringPaths(copy);
  const target = targets[pick % targets.length];
  if (target === undefined) return copy;
  const parent = parentOf(copy, target.path);
  const last = target.path[target.path.length - 1] as string | number;
  if (target.key) {
    const item = parent[last];
    delete parent[last];
    parent[splice(String(last), at, poison)] = item;
  } else {
    parent[last] = splice(parent[last] as string, at, poison);
  }
  return copy;
}

const TIMESTAMP_FIELDS: Path[] = [
  ["observedAt"],
  ["session", "protocol", "initializedAt"],
  ["catalog", "refreshedAt"],
  ["call", "startedAt"],
];

/** Timestamps outside years 0001-9999 once their offset applies, and spellings no Date or PostgreSQL holds. */
const badTimestampArb = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
    .map(([m, d]) => `0000-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}T00:00:00Z`),
  fc.integer({ min: 1, max: 23 }).map((h) => `0001-01-01T00:00:00+${String(h).padStart(2, "0")}:00`),
  fc.integer({ min: 1, max: 23 }).map((h) => `9999-12-31T23:59:59-${String(h).padStart(2, "0")}:00`),
  fc.integer({ min: 10_000, max: 275_760 }).map((y) => `+${String(y).padStart(6, "0")}-01-01T00:00:00Z`),
);

const badDurationArb = fc.oneof(
  fc.double({ min: 365 * 86_400_000 + 1, max: 1e300, noNaN: true }).map(Math.floor),
  fc.integer({ max: 0 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
  fc.constant(2 ** 53),
);

const badRecordArb = fc.oneof(
  fc
    .tuple(recordArb, fc.nat(), fc.nat(), poisonArb)
    .map(([record, pick, at, poison]) => poisonOne(record, pick, at, poison)),
  fc.tuple(recordArb, fc.constantFrom(...TIMESTAMP_FIELDS), badTimestampArb).map(([record, path, stamp]) => {
    const copy = structuredClone(record) as Json;
    // A field whose parent the record lacks (no catalog, no call) is replaced by observedAt, which every record has.
    const target = parentOf(copy, path) ? path : ["observedAt"];
    parentOf(copy, target)[target[target.length - 1] as string] = stamp;
    return copy;
  }),
  fc
    .tuple(
      recordArb.filter((record) => record.call !== undefined),
      badDurationArb,
      fc.constantFrom("deadlineMs", "inactivityMs"),
    )
    .map(([record, duration, field]) => ({ ...record, call: { ...record.call, [field]: duration } })),
  fc
    .tuple(recordArb, fc.constantFrom(".", ".."), fc.constantFrom("chainId", "recordId"))
    .map(([record, id, field]) => ({ ...record, [field]: id })),
);

describe("fuzz: every malformed request is a located 4xx, never a 5xx", { timeout: 300_000 }, () => {
  it("records (JSON and NDJSON batches with one bad record); nothing stored", async () => {
    await run(fc.tuple(badRecordArb, fc.boolean()), async ([record, ndjson]) => {
      const response = ndjson
        ? await api().postRaw(`${JSON.stringify(record)}\n`, "application/x-ndjson")
        : await api().post([record]);
      await expectLocatedClientError(response, JSON.stringify(record).slice(0, 200));
    });
    const stats = (await (await api().get("/api/v1/stats")).json()) as { total: number };
    expect(stats.total).toBe(0);
  });

  it("path ids: bad percent-encoding, NUL, over-long", async () => {
    const hex = "0123456789ABCDEF";
    const badPieceArb = fc.oneof(
      // Each is malformed whatever follows it (the suffix below never starts with a hex digit after a "%").
      fc.constantFrom("%Z", "%ZZ", "%G0", "%%", "%00", "%C0", "%FF", "%80", "%E0%A4", "%F0%9F%98"),
      fc
        .tuple(
          fc.constantFrom(..."AB"),
          fc.constantFrom(...hex),
          fc.constantFrom(..."89AB"),
          fc.constantFrom(...hex),
        )
        .map(([a, b, c, d]) => `%ED%${a}${b}%${c}${d}`),
      fc.integer({ min: 257, max: 2000 }).map((n) => "a".repeat(n)),
    );
    const arb = fc.tuple(
      fc.constantFrom(...PATH_ENDPOINTS),
      fc.stringMatching(/^[A-Za-z0-9._:-]{0,20}$/),
      badPieceArb,
      fc.stringMatching(/^[A-Za-z0-9._:-]{0,20}$/),
    );
    await run(arb, async ([endpoint, before, piece, after]) => {
      const path = pathOf(endpoint, `${before}${piece}${after}`);
      const response = await fetch(`${app.baseUrl}${path}`, {
        method: endpoint.method,
        headers: { cookie, "content-type": "application/json" },
        ...(endpoint.method === "GET" || endpoint.method === "DELETE" ? {} : { body: "{}" }),
      });
      await expectLocatedClientError(response, `${endpoint.method} ${path}`);
    });
  });

  it("cursors: random text, base64 of random JSON, and near-miss tuples", async () => {
    const base64 = (value: Json) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const arb = fc.tuple(
      fc.constantFrom("/api/v1/chains", "/api/v1/queues/false-success"),
      fc.oneof(
        fc.string({ maxLength: 80 }),
        fc.jsonValue().map(base64),
        fc
          .tuple(fc.oneof(badTimestampArb, fc.string(), fc.double()), fc.oneof(fc.string(), fc.integer()))
          .map(base64),
        fc
          .tuple(poisonArb, fc.nat())
          .map(([poison, at]) => base64(["2026-11-30T10:00:00Z", splice("chain:a", at, poison)])),
      ),
    );
    await run(arb, async ([path, cursor]) => {
      const response = await api().get(`${path}?cursor=${encodeURIComponent(cursor)}`);
      // An empty cursor means "first page".
      if (cursor === "" || isValidCursor(cursor)) {
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      } else await expectLocatedClientError(response, `${path} cursor ${JSON.stringify(cursor)}`);
    });
  });

  it("query parameters: NUL and junk in every parameter of the read endpoints", async () => {
    const arb = fc.tuple(
      fc.constantFrom(
        ["/api/v1/chains", "server"],
        ["/api/v1/chains", "client"],
        ["/api/v1/chains", "tool"],
        ["/api/v1/chains", "session"],
        ["/api/v1/chains", "label"],
        ["/api/v1/chains", "since"],
        ["/api/v1/chains", "until"],
        ["/api/v1/chains", "limit"],
        ["/api/v1/stats", "since"],
        ["/api/v1/coverage", "since"],
        ["/api/v1/attention", "since"],
        ["/api/v1/queues/effect-unknown", "status"],
        ["/api/v1/routing/deliveries", "channel"],
      ),
      fc.string({ maxLength: 40 }),
      fc.nat(),
    );
    await run(arb, async ([[path, name], value, at]) => {
      const query = `${name}=${encodeURIComponent(splice(value, at, "\u0000"))}`;
      const response = await fetch(`${app.baseUrl}${path}?${query}`, { headers: { cookie } });
      await expectLocatedClientError(response, `${path}?${query}`);
    });
  });

  it("dashboard bodies: random JSON with one poisoned string or key", async () => {
    const arb = fc.tuple(
      fc.constantFrom(
        "/api/v1/chains/chain:x/triage",
        "/api/v1/chains/chain:x/reconcile",
        "/api/v1/keys",
        "/api/v1/routing/silences",
        "/api/v1/routing/route-test",
        "/api/v1/routing/test-notification",
      ),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { minKeys: 1 }),
      fc.nat(),
      fc.nat(),
      poisonArb,
    );
    await run(arb, async ([path, body, pick, at, poison]) => {
      const poisoned = poisonOne(body, pick, at, poison);
      const response = await fetch(`${app.baseUrl}${path}`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify(poisoned),
      });
      await expectLocatedClientError(response, `${path} ${JSON.stringify(poisoned).slice(0, 200)}`);
    });
  });

  it("the app logged no failure while answering all of the above", () => {
    expect(app.output()).not.toMatch(/receipt: .* failed|Internal Server Error/);
  });
});

function isValidCursor(cursor: string): boolean {
  return parseCursor(cursor) !== undefined;
}
