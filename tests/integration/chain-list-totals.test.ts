import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATE_SEVERITY_ORDER, type State } from "@/lib/contract";
import type { ChainPage } from "@/lib/dashboard/api-types";
import { CHAIN_TOTAL_CAP } from "@/lib/dashboard/chain-list-query";
import { parseCursor } from "@/lib/dashboard/cursor";
import { Prisma } from "@/lib/generated/prisma/client";
import type { ChainListQuery } from "@/lib/server/db/chain-list";
import type { PageBoundsUse } from "@/lib/server/db/chain-list-bounds";
import { appendRollupDeltasFrom, ROLLUP_KEY_OF_CHAIN } from "@/lib/server/db/chain-rollup-sql";
import { createTestDatabase } from "@/tests/support/test-database";

// Chain-list totals that combine state, server, tool and client (or filter on labels) are summed from the hour
// rollup (or the label rollups) plus the unfolded deltas, with the parts of an hour at a since/until edge counted from `chains`. Chains around an hour edge, written
// with the writers' own delta SQL, some moved to the next hour after a fold (−1 and +1 deltas left unfolded): each
// total must equal a plain count(*) over `chains`, and the capped count must stop exactly at its cap.
const HOUR = 3_600_000;
const edge = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
let listChains: typeof import("@/lib/server/db/chain-list").listChains;
let chainFilters: typeof import("@/lib/server/db/chain-list").chainFilters;
let countFromRollupsCapped: typeof import("@/lib/server/db/chain-list-totals").countFromRollupsCapped;
let totalFromRollups: typeof import("@/lib/server/db/chain-list-totals").totalFromRollups;
let pageBoundsUse: typeof import("@/lib/server/db/chain-list-bounds").pageBoundsUse;

const sql = {
  query: async (text: string, values: unknown[] = []) => (await client.query(text, values)).rows,
  execute: async (text: string, values: unknown[] = []) => (await client.query(text, values)).rowCount ?? 0,
};

/** Chains n = 1..count, spread over [edge − 2 h, edge + 2 h] with some exactly on and 1 ms around the edge. */
async function addChains(from: number, count: number) {
  await client.query(
    `with changes as (
      insert into chains as c (chain_id, session_id, state, layer, reasons, current_record_id, current_seq, observed_at,
        evaluated_at, client_name, client_version, transport, server_name, tool, shadowed_state, labels)
      select 't:' || n, 's:' || n, st, 'outcome',
        case when n % 4 = 0 then array[st || '.test', 'outcome.weak_evidence'] else array[st || '.test'] end, 'r:' || n, n,
        to_timestamp($3::bigint / 1000.0) + case n % 7 when 0 then interval '0' when 1 then interval '1 ms'
          when 2 then interval '-1 ms' else (n % 240 - 120) * interval '1 minute' + (n % 13) * interval '1 ms' end,
        now(), 'cli-' || (n % 3), '1', 'stdio', 'srv-' || (n % 4), case when n % 9 = 0 then null else 'tool-' || (n % 5) end,
        case when st = 'needs_auth' and n % 2 = 0 then 'effect_unknown' end,
        case n % 8 when 0 then '{}'::jsonb when 1 then '{"url": "a:b"}'
          else jsonb_build_object('env', case when n % 3 = 0 then 'prod' else 'dev' end, 'team', 't' || (n % 4)) end
      from (select n, (array['healthy', 'tool_failed', 'needs_auth', 'effect_unknown', 'false_success'])[1 + n % 5] st
        from generate_series($1::int, $2::int) n) g
      returning ${ROLLUP_KEY_OF_CHAIN}, c.labels, 1 as chains, c.observed_at, c.updated_at as written_at
    ) ${appendRollupDeltasFrom("changes")}`,
    [from, from + count - 1, edge],
  );
}

/**
 * Moves every chain with n % 6 = 0 to the next hour, as a late record would, and gives every other one of them
 * another team: −1 and +1 deltas.
 */
async function moveChains() {
  await client.query(
    `with picked as (select chain_id from chains where current_seq % 6 = 0), old as (
      select ${ROLLUP_KEY_OF_CHAIN}, c.labels, -1 as chains, null::timestamptz as observed_at,
        null::timestamptz as written_at
      from chains c join picked using (chain_id)
    ), moved as (
      update chains c set observed_at = c.observed_at + interval '1 hour', updated_at = now(),
        labels = case when c.current_seq % 12 = 0 then c.labels || '{"team": "t9"}' else c.labels end
      from picked where c.chain_id = picked.chain_id
      returning ${ROLLUP_KEY_OF_CHAIN}, c.labels, 1 as chains, c.observed_at, c.updated_at as written_at
    ), changes as (select * from old union all select * from moved)
    ${appendRollupDeltasFrom("changes")}`,
  );
}

async function fold() {
  const { foldChainRollupDeltas } = await import("@/lib/server/db/chain-rollups");
  await client.query("begin");
  await foldChainRollupDeltas(sql, 1_000_000);
  await client.query("commit");
}

const base: ChainListQuery = { label: [], order: "desc", sort: "time", limit: 5 };
const at = (ms: number) => new Date(ms).toISOString();

// Name, filters, where the total comes from, and whether the page is bounded in time from the rollups first.
const FILTERS: [string, Partial<ChainListQuery>, "rollups" | "chains", PageBoundsUse?][] = [
  ["server & tool", { server: "srv-1", tool: "tool-2" }, "rollups"],
  ["server & client & tool", { server: "srv-2", client: "cli-1", tool: "tool-3" }, "rollups", "always"],
  ["tool & client", { tool: "tool-1", client: "cli-0" }, "rollups"],
  ["state & server", { state: ["tool_failed"], server: "srv-3" }, "rollups"],
  ["shadowed state & client", { state: ["effect_unknown"], client: "cli-2" }, "rollups"],
  ["two states & tool", { state: ["false_success", "effect_unknown"], tool: "tool-4" }, "rollups"],
  ["a deciding reason", { reason: "needs_auth.test" }, "rollups", "always"],
  ["a reason no chain has", { reason: "tool_failed.none" }, "rollups", "always"],
  [
    "a problem's chains without server or tool (state, reason)",
    { state: ["needs_auth"], reason: "needs_auth.test" },
    "rollups",
    "ifFew",
  ],
  [
    "a state & a reason no chain of it has",
    { state: ["healthy"], reason: "needs_auth.test" },
    "rollups",
    "ifFew",
  ],
  [
    "a shadowed state & a reason",
    { state: ["effect_unknown", "false_success"], reason: "needs_auth.test" },
    "rollups",
    "ifFew",
  ],
  [
    "a problem's chains (state, server, tool, reason)",
    { state: ["false_success"], server: "srv-0", tool: "tool-4", reason: "false_success.test" },
    "rollups",
    "always",
  ],
  ["a path code as the reason", { reason: "outcome.weak_evidence", server: "srv-1" }, "chains"],
  ["a path code alone", { reason: "outcome.weak_evidence" }, "chains"],
  ["a label", { label: ["env:prod"] }, "rollups"],
  ["a label whose value has a colon", { label: ["url:a:b"] }, "rollups"],
  ["a label some chains moved to", { label: ["team:t9"] }, "rollups"],
  ["a label & a state (current or shadowed)", { label: ["team:t2"], state: ["effect_unknown"] }, "rollups"],
  [
    "a label & server & tool & client",
    { label: ["env:dev"], server: "srv-1", tool: "tool-1", client: "cli-2" },
    "rollups",
    "always",
  ],
  [
    "a label & a state & a client",
    { label: ["team:t1"], state: ["effect_unknown"], client: "cli-0" },
    "rollups",
    "always",
  ],
  [
    "a label & two states & a server (none match)",
    { label: ["env:none"], state: ["healthy", "needs_auth"], server: "srv-1" },
    "rollups",
    "always",
  ],
  ["a label no chain has", { label: ["env:none"] }, "rollups"],
  ["two labels", { label: ["env:prod", "team:t1"] }, "rollups"],
  ["two labels, one of them a server's", { label: ["env:prod", "team:t2"] }, "rollups"],
  [
    "two labels & a state & a server",
    { label: ["team:t2", "env:dev"], state: ["needs_auth"], server: "srv-2" },
    "rollups",
    "always",
  ],
  [
    "two labels & a server that never has them",
    { label: ["env:prod", "team:t2"], server: "srv-1" },
    "rollups",
    "always",
  ],
  ["two labels & a client", { label: ["env:dev", "team:t1"], client: "cli-1" }, "rollups", "always"],
  [
    "three labels, one repeated",
    { label: ["team:t3", "env:dev", "team:t3"], state: ["effect_unknown"] },
    "rollups",
    "always",
  ],
  ["three labels no chain has together", { label: ["team:t3", "env:dev", "url:a:b"] }, "rollups"],
  ["a label & a reason", { label: ["env:dev"], reason: "needs_auth.test" }, "chains"],
];
const RANGES: [string, { since?: string; until?: string }][] = [
  ["all time", {}],
  ["since on an hour", { since: at(edge) }],
  ["since 1 ms after an hour", { since: at(edge + 1) }],
  ["since 1 ms before an hour", { since: at(edge - 1) }],
  ["since inside an hour", { since: at(edge - 30 * 60_000 + 7) }],
  ["until on an hour", { until: at(edge) }],
  ["until inside an hour", { until: at(edge + 20 * 60_000 + 3) }],
  ["since and until a few hours apart", { since: at(edge - HOUR - 1), until: at(edge + HOUR + 1) }],
  ["since and until in one hour", { since: at(edge + 1), until: at(edge + 40 * 60_000) }],
  ["since and until over one edge", { since: at(edge - 1), until: at(edge + 1) }],
];

/** A page as a plain ordered read of `chains`: ids of the `limit` newest (or oldest) after the cursor's position. */
async function plainPage(query: ChainListQuery, after?: { observedAt: string; chainId: string }) {
  const where = Prisma.join(chainFilters(query), " and ");
  const direction = query.order === "asc" ? "asc" : "desc";
  const n = where.values.length;
  const position = after
    ? `and (c.observed_at, c.chain_id) ${direction === "desc" ? "<" : ">"} ($${n + 1}::timestamptz, $${n + 2}::text)`
    : "";
  const { rows } = await client.query<{ chain_id: string }>(
    `select chain_id from chains c where ${where.text} ${position}
      order by c.observed_at ${direction}, c.chain_id ${direction} limit ${query.limit}`,
    after ? [...where.values, after.observedAt, after.chainId] : where.values,
  );
  return rows.map((row) => row.chain_id);
}

/** The first two pages of `query` (by cursor) equal plain ordered reads, newest and oldest first. */
async function expectPagesAsPlainReads(query: ChainListQuery, range: string) {
  for (const order of ["desc", "asc"] as const) {
    const ordered = { ...query, order };
    const first = await listChains(ordered);
    expect(
      first.chains.map((chain) => chain.chainId),
      `${range} ${order}`,
    ).toEqual(await plainPage(ordered));
    const last = first.chains.at(-1);
    if (!first.nextCursor || !last) continue;
    const second = await listChains({ ...ordered, cursor: parseCursor(first.nextCursor) });
    const plain = await plainPage(ordered, { observedAt: last.observedAt, chainId: last.chainId });
    expect(
      second.chains.map((chain) => chain.chainId),
      `${range} ${order} page 2`,
    ).toEqual(plain);
  }
}

/** The query with the label sets listChains reads two labels or more through (none for fewer). */
async function withLabelSets(query: ChainListQuery): Promise<ChainListQuery> {
  if (query.label.length < 2) return query;
  const { readLabelSetsHolding } = await import("@/lib/server/db/chain-label-sets");
  const { labelPair } = await import("@/lib/server/db/chain-list-totals");
  const labels = Object.fromEntries(query.label.map(labelPair).map(({ key, value }) => [key, value]));
  const labelSets = await readLabelSetsHolding(labels);
  return labelSets ? { ...query, labelSets } : query;
}

async function plainCount(query: ChainListQuery) {
  const where = Prisma.join(chainFilters(query), " and ");
  const { rows } = await client.query<{ n: number }>(
    `select count(*)::int as n from chains c where ${where.text}`,
    where.values,
  );
  return rows[0]?.n ?? 0;
}

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  ({ listChains, chainFilters } = await import("@/lib/server/db/chain-list"));
  ({ countFromRollupsCapped, totalFromRollups } = await import("@/lib/server/db/chain-list-totals"));
  ({ pageBoundsUse } = await import("@/lib/server/db/chain-list-bounds"));
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await db?.drop();
});

describe.each([
  ["unfolded", async () => addChains(1, 1500)],
  [
    "partly folded",
    async () => {
      await fold();
      await addChains(1501, 500);
    },
  ],
  [
    "folded, then moved (−1 and +1 unfolded)",
    async () => {
      await fold();
      await moveChains();
    },
  ],
  ["all folded", fold],
])("deltas %s", (_, prepare) => {
  beforeAll(prepare);

  for (const [name, filters, path, bounded = "never"] of FILTERS) {
    it(`${name}: every range equals count(*), the cap cuts exactly, pages as plain reads`, async () => {
      expect(totalFromRollups(await withLabelSets({ ...base, ...filters }))).toBe(path === "rollups");
      const deltas = await client.query("select count(*)::int as n from chain_rollup_deltas");
      if (_ === "all folded") expect(deltas.rows[0].n).toBe(0);
      else expect(deltas.rows[0].n).toBeGreaterThan(0);
      for (const [range, bounds] of RANGES) {
        const query: ChainListQuery = { ...base, ...filters, ...bounds };
        const expected = await plainCount(query);
        const page = await listChains(query);
        expect(page.total, range).toEqual({ count: expected, capped: false });
        const withSets = await withLabelSets(query);
        expect(pageBoundsUse(withSets)).toBe(bounded);
        await expectPagesAsPlainReads(query, range);
        if (path === "chains") continue;
        const untimed = chainFilters({ ...withSets, since: undefined, until: undefined });
        for (const cap of [expected - 1, expected, expected + 1].filter((n) => n >= 0)) {
          const counted = await countFromRollupsCapped(withSets, untimed, cap);
          if (expected > cap) expect(counted, `${range}, cap ${cap}`).toBeGreaterThan(cap);
          else expect(counted, `${range}, cap ${cap}`).toBe(expected);
        }
      }
    });
  }
});

it("answers one label key asked with two values with no chains, as two separate containments count", async () => {
  const query: ChainListQuery = { ...base, label: ["env:dev", "env:prod"] };
  const { rows } = await client.query<{ n: number }>(
    `select count(*)::int as n from chains where labels @> '{"env": "dev"}' and labels @> '{"env": "prod"}'`,
  );
  expect(rows[0]?.n).toBe(0);
  expect(await listChains(query)).toEqual({
    chains: [],
    nextCursor: null,
    total: { count: 0, capped: false },
  });
  expect(await plainCount(query)).toBe(0);
});

it("reports cap+ above CHAIN_TOTAL_CAP", async () => {
  await addChains(2001, CHAIN_TOTAL_CAP * 4);
  const everyState = ["healthy", "tool_failed", "needs_auth", "effect_unknown", "false_success"] as const;
  const query: ChainListQuery = { ...base, state: [...everyState], client: "cli-1" };
  expect(await plainCount(query)).toBeGreaterThan(CHAIN_TOTAL_CAP);
  expect((await listChains(query)).total).toEqual({ count: CHAIN_TOTAL_CAP, capped: true });
  await fold();
  expect((await listChains(query)).total).toEqual({ count: CHAIN_TOTAL_CAP, capped: true });
});

it("reads a state and a reason's hours only while the rollups hold fewer rows of the pair than the limit", async () => {
  const { readPageBounds } = await import("@/lib/server/db/chain-list-bounds");
  const pair = { state: ["needs_auth"], reason: "needs_auth.test" };
  const { rows } = await client.query<{ n: number }>(
    `select count(*)::int as n from chain_rollups where state = 'needs_auth' and reason = 'needs_auth.test'`,
  );
  const folded = rows[0]?.n ?? 0;
  expect(folded).toBeGreaterThan(1);
  expect(await readPageBounds(pair, "desc", 6, undefined, folded)).toBe("many");
  expect(await readPageBounds(pair, "desc", 6, undefined, folded + 1)).toMatchObject({ complete: false });
  // Through its shadowed state too (needs_auth chains shadow effect_unknown).
  expect(await readPageBounds({ ...pair, state: ["effect_unknown"] }, "desc", 6, undefined, 1)).toBe("many");
  // None of the state's rows hold the reason: no hours, whatever the limit.
  expect(await readPageBounds({ ...pair, state: ["healthy"] }, "desc", 6, undefined, 1)).toBeNull();
});

it("finds and counts a path code's chains as a plain test on reasons does, wherever in reasons the code is", async () => {
  // Chains with two path codes (three reasons), which chains_path_code_state_observed_at_idx does not hold.
  await client.query(
    `insert into chains (chain_id, session_id, state, layer, reasons, current_record_id, current_seq, observed_at,
        evaluated_at, client_name, client_version, transport, labels)
      select 'paths:' || n, 'paths:' || n, 'healthy', 'outcome',
        array['outcome.verified', 'request.inactive', 'outcome.weak_evidence'], 'paths:' || n, n,
        to_timestamp($1::bigint / 1000.0) + n * interval '1 minute', now(), 'cli-0', '1', 'stdio', '{}'
      from generate_series(1, 7) n`,
    [edge],
  );
  try {
    for (const [reason, state, since] of [
      ["outcome.weak_evidence", undefined, undefined],
      ["outcome.weak_evidence", undefined, at(edge + 3 * 60_000)],
      ["outcome.weak_evidence", "tool_failed", undefined],
      // Current or shadowed (needs_auth chains shadow effect_unknown), and healthy, the state of the several-codes chains.
      ["outcome.weak_evidence", "effect_unknown", at(edge)],
      ["outcome.weak_evidence", "healthy", undefined],
      ["request.inactive", "healthy", undefined],
      ["request.inactive", "false_success", undefined],
      ["request.inactive", "tool_failed", at(edge + 3 * 60_000)],
      ["request.inactive", undefined, undefined],
      ["request.cancelled", undefined, undefined],
    ] as const) {
      const { rows } = await client.query<{ chain_id: string; n: number }>(
        `select chain_id, count(*) over ()::int as n from chains
          where $1::text = any(reasons) and ($2::text is null or state = $2 or shadowed_state = $2) and ($3::timestamptz is null or observed_at >= $3)
          order by observed_at desc, chain_id desc`,
        [reason, state ?? null, since ?? null],
      );
      const query = { ...base, reason, ...(state ? { state: [state] } : {}), ...(since ? { since } : {}) };
      const page = await listChains(query);
      const label = `${reason} ${state ?? ""} ${since ?? ""}`;
      expect(
        page.chains.map((chain) => chain.chainId),
        label,
      ).toEqual(rows.slice(0, 5).map((row) => row.chain_id));
      // Both orders and page 2, the one-code and several-codes reads merged, as one ordered read.
      await expectPagesAsPlainReads({ ...query, limit: 3 }, label);
      const matching = rows[0]?.n ?? 0;
      expect(page.total, label).toEqual({
        count: Math.min(matching, CHAIN_TOTAL_CAP),
        capped: matching > CHAIN_TOTAL_CAP,
      });
    }
    // By danger: the current state's rank, then newest first, read a state at a time, through every page.
    for (const states of [undefined, ["effect_unknown", "healthy"]]) {
      const { rows } = await client.query<{ chain_id: string }>(
        `select chain_id from chains where 'outcome.weak_evidence' = any(reasons)
            and ($1::text[] is null or state = any($1) or shadowed_state = any($1))
          order by array_position($2::text[], state), observed_at desc, chain_id desc`,
        [states ?? null, STATE_SEVERITY_ORDER],
      );
      const query: ChainListQuery = {
        ...base,
        reason: "outcome.weak_evidence",
        sort: "danger",
        limit: Math.max(3, Math.ceil(rows.length / 4)),
        ...(states ? { state: states as State[] } : {}),
      };
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: ChainPage = await listChains({
          ...query,
          ...(cursor ? { cursor: parseCursor(cursor) } : {}),
        });
        seen.push(...page.chains.map((chain) => chain.chainId));
        cursor = page.nextCursor;
      } while (cursor);
      expect(rows.length, `danger ${states}`).toBeGreaterThan(4);
      expect(seen, `danger ${states}`).toEqual(rows.map((row) => row.chain_id));
    }
  } finally {
    await client.query("delete from chains where chain_id like 'paths:%'");
  }
  const { rows: indexes } = await client.query<{ indexname: string; indexdef: string }>(
    "select indexname, indexdef from pg_indexes where indexname like 'chains_%path_code%' order by indexname",
  );
  // A read names a code and a state and walks one range in time order; a page's ids and a total need no heap row.
  expect(
    indexes.find((index) => index.indexname === "chains_path_code_state_observed_at_idx")?.indexdef,
  ).toContain("((reasons[2]), state, observed_at DESC, chain_id DESC) INCLUDE (reasons, shadowed_state)");
  // The filter spells out each index's predicate: the planner uses a partial index only for a query that implies it.
  expect(indexes.map((index) => [index.indexname, index.indexdef.split(" WHERE ")[1]]).sort()).toEqual([
    ["chains_path_code_state_observed_at_idx", "(cardinality(reasons) = 2)"],
    ["chains_path_codes_idx", "(cardinality(reasons) > 2)"],
  ]);
});

it("finds the label sets that hold every label, as a distinct over the chains that contain them does", async () => {
  const { readLabelSetsHolding } = await import("@/lib/server/db/chain-label-sets");
  const asked: Record<string, string>[] = [
    { env: "prod", team: "t1" },
    { team: "t9", env: "dev" },
    { url: "a:b" },
  ];
  for (const labels of asked) {
    const { rows } = await client.query<{ label_set: string }>(
      `select distinct hashtextextended(labels::text, 0)::text as label_set from chains where labels @> $1::jsonb`,
      [JSON.stringify(labels)],
    );
    const found = await readLabelSetsHolding(labels);
    expect(found?.sort(), JSON.stringify(labels)).toEqual(rows.map((row) => row.label_set).sort());
  }
  expect(await readLabelSetsHolding({ env: "none", team: "t1" })).toEqual([]);
});

it("tests two labels on the rows when chains hold more label sets than are walked, and counts the same", async () => {
  const { LABEL_SETS_WALKED, readLabelSetsHolding } = await import("@/lib/server/db/chain-label-sets");
  await client.query(
    `insert into chains (chain_id, session_id, state, layer, reasons, current_record_id, current_seq, observed_at,
        evaluated_at, client_name, client_version, transport, labels)
      select 'run:' || n, 'run:' || n, 'healthy', 'outcome', array['healthy.test'], 'run:' || n, n, now(), now(),
        'cli-0', '1', 'stdio', jsonb_build_object('env', 'prod', 'team', 't1', 'run', n::text)
      from generate_series(1, $1::int) n`,
    [LABEL_SETS_WALKED],
  );
  expect(await readLabelSetsHolding({ env: "prod", team: "t1" })).toBeNull();
  const query: ChainListQuery = { ...base, label: ["env:prod", "team:t1"], limit: 50 };
  const expected = await plainCount(query);
  expect(expected).toBeGreaterThan(LABEL_SETS_WALKED);
  expect((await listChains(query)).total).toEqual({ count: expected, capped: false });
  await expectPagesAsPlainReads(query, "more label sets than are walked");
});
