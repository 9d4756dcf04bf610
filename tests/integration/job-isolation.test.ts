import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { SetAsideJob } from "@/lib/server/db/set-aside";
import { seedRecord } from "@/tests/support/routing-helpers";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// Every background job isolates what fails: a bad row, planted straight through SQL next to good ones, is set aside
// with its reason (logged once, counted) and everything else goes on, in the same run and in every later one.
// The jobs are called directly, on a real PostgreSQL, exactly as the server's background loop calls them.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: WebhookReceiver;
let lib: {
  sql: typeof import("@/lib/server/db/sql");
  records: typeof import("@/lib/server/ingest/store-records");
  prepare: typeof import("@/lib/server/ingest/prepare-records");
  deadlines: typeof import("@/lib/server/chains/deadline-job");
  outbox: typeof import("@/lib/server/routing/outbox-processor");
  flush: typeof import("@/lib/server/routing/group-flush");
  delivery: typeof import("@/lib/server/routing/delivery-worker");
  deliveries: typeof import("@/lib/server/db/routing-deliveries");
  setAside: typeof import("@/lib/server/db/set-aside");
  chains: typeof import("@/lib/server/db/chains");
  metrics: typeof import("@/lib/server/metrics/registry");
};

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  // A generous per-attempt timeout: on a loaded machine a 10 s attempt to a local receiver can time out and be retried.
  process.env.RECEIPT_DELIVERY_TIMEOUT_MS = "60000";
  // The receiver listens on 127.0.0.1, which the outbound policy refuses unless allowed.
  process.env.RECEIPT_OUTBOUND_ALLOW = "127.0.0.0/8";
  receiver = await startWebhookReceiver();
  lib = {
    sql: await import("@/lib/server/db/sql"),
    records: await import("@/lib/server/ingest/store-records"),
    prepare: await import("@/lib/server/ingest/prepare-records"),
    deadlines: await import("@/lib/server/chains/deadline-job"),
    outbox: await import("@/lib/server/routing/outbox-processor"),
    flush: await import("@/lib/server/routing/group-flush"),
    delivery: await import("@/lib/server/routing/delivery-worker"),
    deliveries: await import("@/lib/server/db/routing-deliveries"),
    setAside: await import("@/lib/server/db/set-aside"),
    chains: await import("@/lib/server/db/chains"),
    metrics: await import("@/lib/server/metrics/registry"),
  };
});
afterAll(async () => {
  await receiver?.stop();
  const { getPool } = await import("@/lib/server/db/client");
  await getPool().end();
  await db?.drop();
});

const HOUR = 3_600_000;
const query = <Row>(text: string, values: unknown[] = []) => lib.sql.poolSql().query<Row>(text, values);
const ingest = async (records: HealthRecord[]) =>
  lib.records.saveRecords(await lib.prepare.prepareRecords(records));

async function setAsideRows(job: SetAsideJob) {
  return query<{ item_key: string; reason: string }>(
    "select item_key, reason from set_aside_items where job = $1 order by item_key",
    [job],
  );
}

async function setAsideCounted(job: SetAsideJob): Promise<number> {
  const counter = await lib.metrics.metrics().itemsSetAside.get();
  return counter.values.find((value) => value.labels.job === job)?.value ?? 0;
}

/** A record's stored body replaced, as a bad row would be (the json column takes what jsonb refuses). */
async function plantBody(recordId: string, body: string) {
  const updated = await lib.sql
    .poolSql()
    .execute("update health_records set body = $1::json where record_id = $2", [body, recordId]);
  expect(updated).toBe(1);
}

describe("the deadline job", () => {
  it("re-classifies every due chain but the bad ones, which are set aside until a newer record arrives", async () => {
    const ids = ["dl-good-1", "dl-nul", "dl-good-2", "dl-surrogate", "dl-shape", "dl-infinity"];
    const records = ids.map((id) => seedRecord("working", id));
    await ingest(records);
    const [, nul, , surrogate] = records as [HealthRecord, HealthRecord, HealthRecord, HealthRecord];
    // What a record with a NUL or a lone surrogate in session.capabilities stores: PostgreSQL's json keeps the escape,
    // and the alert context written from it (jsonb) refuses it.
    nul.session.capabilities.server.push("bad\u0000capability");
    await plantBody("rec:dl-nul", JSON.stringify(nul));
    surrogate.session.capabilities.client.push("bad\ud800capability");
    await plantBody("rec:dl-surrogate", JSON.stringify(surrogate));
    // A body the classifier cannot read, and a due time JavaScript cannot hold.
    await plantBody("rec:dl-shape", JSON.stringify({ recordId: "rec:dl-shape", session: null }));
    await query("update chains set next_check_at = '-infinity' where chain_id = 'chain:dl-infinity'");
    const counted = await setAsideCounted("deadline");

    const later = new Date(Date.now() + 5 * HOUR);
    expect(await lib.deadlines.reclassifyDueChains(later)).toBe(2);
    const states = await query<{ chain_id: string; state: string }>(
      "select chain_id, state from chains where chain_id like 'chain:dl-%' order by chain_id",
    );
    expect(Object.fromEntries(states.map((row) => [row.chain_id, row.state]))).toEqual({
      "chain:dl-good-1": "effect_unknown",
      "chain:dl-good-2": "effect_unknown",
      "chain:dl-infinity": "working",
      "chain:dl-nul": "working",
      "chain:dl-shape": "working",
      "chain:dl-surrogate": "working",
    });
    const setAside = await setAsideRows("deadline");
    expect(setAside.map((row) => row.item_key)).toEqual([
      "chain:dl-infinity",
      "chain:dl-nul",
      "chain:dl-shape",
      "chain:dl-surrogate",
    ]);
    const reasons = Object.fromEntries(setAside.map((row) => [row.item_key, row.reason]));
    expect(reasons["chain:dl-nul"]).toMatch(/unsupported Unicode escape sequence/);
    expect(reasons["chain:dl-surrogate"]).toMatch(/invalid input syntax for type json/);
    expect(reasons["chain:dl-shape"]).toMatch(/^TypeError: /);
    expect(reasons["chain:dl-infinity"]).toMatch(/^TypeError: /);
    // The reason names the error, never the evidence.
    for (const reason of Object.values(reasons)) expect(reason).not.toMatch(/bad.capability/);
    expect(await setAsideCounted("deadline")).toBe(counted + 4);

    // The next runs neither fail nor pick the set-aside chains again, nor count them twice.
    expect(await lib.deadlines.reclassifyDueChains(later)).toBe(0);
    expect(await lib.deadlines.reclassifyDueChains(later)).toBe(0);
    expect(await setAsideCounted("deadline")).toBe(counted + 4);
    expect((await lib.setAside.countSetAsideByJob()).deadline).toBe(4);
    const detail = await lib.chains.getChainDetail("chain:dl-nul");
    expect(detail?.setAside?.reason).toMatch(/unsupported Unicode escape sequence/);

    // A newer, good record of a set-aside chain is classified as usual: the set-aside is over.
    const fixed = seedRecord("working", "dl-nul");
    fixed.recordId = "rec:dl-nul:2";
    fixed.observedAt = new Date(Date.parse(fixed.observedAt) + 1000).toISOString();
    await ingest([fixed]);
    expect((await lib.setAside.countSetAsideByJob()).deadline).toBe(3);
    expect(await lib.deadlines.reclassifyDueChains(later)).toBe(1);
    expect((await lib.chains.getChainDetail("chain:dl-nul"))?.chain.state).toBe("effect_unknown");
    expect((await lib.chains.getChainDetail("chain:dl-nul"))?.setAside).toBeNull();
    expect(await setAsideRows("deadline")).toHaveLength(3);

    // An operator's retry releases them; they fail again, once each, and nothing else stops.
    expect(await lib.setAside.retrySetAside({ job: "deadline" })).toBe(3);
    expect(await lib.deadlines.reclassifyDueChains(later)).toBe(0);
    expect(await setAsideRows("deadline")).toHaveLength(3);
  });
});

describe("the alert routing job (outbox)", () => {
  it("routes every alert but one whose group cannot be written, which is set aside", async () => {
    await lib.outbox.routeOutboxEvents(); // the deadline test's alerts, out of the way
    await ingest([seedRecord("tool_failed", "ob-good"), seedRecord("tool_failed", "ob-bad")]);
    // A label value too long for the group key's index: PostgreSQL refuses the group row.
    const updated = await lib.sql.poolSql().execute(
      `update alerts set labels = jsonb_set(labels, '{server}',
        to_jsonb((select string_agg(md5(i::text || random()::text), '') from generate_series(1, 400) i)))
      where chain_id = 'chain:ob-bad'`,
    );
    expect(updated).toBe(1);
    const counted = await setAsideCounted("alert-routing");

    expect(await lib.outbox.routeOutboxEvents()).toBe(2);
    const members = await query<{ fingerprint: string; group_key: string }>(
      `select m.fingerprint, m.group_key from notification_group_members m
        join alerts a on a.fingerprint = m.fingerprint where a.chain_id like 'chain:ob-%'`,
    );
    expect(members).toHaveLength(1);
    expect(members[0]?.group_key).toContain("srv-ob-good");
    const [bad] = await query<{ fingerprint: string }>(
      "select fingerprint from alerts where chain_id = 'chain:ob-bad'",
    );
    const setAside = await setAsideRows("alert-routing");
    expect(setAside.map((row) => row.item_key)).toEqual([bad?.fingerprint]);
    expect(setAside[0]?.reason).toMatch(/index row .*size/);
    expect(await setAsideCounted("alert-routing")).toBe(counted + 1);
    expect(await query("select 1 from alert_outbox")).toEqual([]);
    expect(await lib.outbox.routeOutboxEvents()).toBe(0);
  });
});

describe("the group flush job", () => {
  it("flushes every due group but one that cannot be planned, and ignores a silence that no longer compiles", async () => {
    await ingest([seedRecord("protocol_error", "gf-good"), seedRecord("protocol_error", "gf-bad")]);
    expect(await lib.outbox.routeOutboxEvents()).toBe(2);
    const groups = await query<{ group_key: string }>(
      "select group_key from notification_groups where group_key like '%srv-gf-%' order by group_key",
    );
    expect(groups).toHaveLength(2);
    const badKey = groups.find((g) => g.group_key.includes("srv-gf-bad"))?.group_key;
    const goodKey = groups.find((g) => g.group_key.includes("srv-gf-good"))?.group_key;
    // A timestamp JavaScript cannot hold as a Date, and a silence saved before its matcher syntax was refused.
    await query("update notification_groups set first_seen_at = 'infinity' where group_key = $1", [badKey]);
    const [silence] = await query<{ id: string }>(
      `insert into silences (id, matchers, starts_at, ends_at, created_by, comment)
        values (gen_random_uuid(), '{"not a matcher"}', now() - interval '1 hour', now() + interval '3 days',
          'operator', 'saved by an older version') returning id::text`,
    );
    const counted = await setAsideCounted("group-flush");

    const later = new Date(Date.now() + HOUR);
    expect(await lib.flush.flushDueGroups(later)).toBeGreaterThanOrEqual(1);
    const state = await query<{ group_key: string; last_sent_at: Date | null; next_action_at: Date | null }>(
      "select group_key, last_sent_at, next_action_at from notification_groups where group_key = any($1::text[])",
      [[badKey, goodKey]],
    );
    const byKey = new Map(state.map((row) => [row.group_key, row]));
    expect(byKey.get(goodKey ?? "")?.last_sent_at).toBeInstanceOf(Date);
    expect(byKey.get(badKey ?? "")?.last_sent_at).toBeNull();
    expect(byKey.get(badKey ?? "")?.next_action_at).toBeNull();
    const setAside = Object.fromEntries(
      (await setAsideRows("group-flush")).map((row) => [row.item_key, row.reason]),
    );
    expect(Object.keys(setAside).sort()).toEqual([badKey, `silence:${silence?.id}`].sort());
    expect(setAside[badKey ?? ""]).toMatch(/^TypeError: /);
    expect(setAside[`silence:${silence?.id}`]).toMatch(/invalid matcher/);
    expect(await setAsideCounted("group-flush")).toBe(counted + 2);

    // Later runs go on; the silence that still does not compile is not reported again.
    await expect(
      lib.flush.flushDueGroups(new Date(later.getTime() + 24 * HOUR)),
    ).resolves.toBeGreaterThanOrEqual(0);
    expect(await setAsideCounted("group-flush")).toBe(counted + 2);
    expect((await lib.setAside.countSetAsideByJob())["group-flush"]).toBe(2);
  });
});

describe("the delivery job", () => {
  it("sends every due delivery but one whose claim PostgreSQL refuses, which becomes a set-aside dead letter", async () => {
    const row = (groupKey: string) => ({
      groupKey,
      channel: "ops",
      targetIndex: 0,
      targetType: "webhook",
      url: receiver.url(`/hook/${groupKey}`),
      body: JSON.stringify({ groupKey }),
      headers: { "content-type": "application/json" },
      signingSecret: null,
      kind: "notification" as const,
      alertFingerprints: [],
      maxAttempts: 3,
    });
    const past = new Date(Date.now() - 1000);
    const [good, bad, good2] = await lib.sql.inTransaction((sql) =>
      lib.deliveries.insertDeliveries(sql, [row("dv-good"), row("dv-bad"), row("dv-good-2")], past),
    );
    // An attempt counter at the top of its type: the claim's `attempts + 1` overflows.
    await query("update deliveries set attempts = 2147483647 where id = $1", [String(bad)]);
    const counted = await setAsideCounted("delivery");

    expect(await lib.delivery.sendDueDeliveries()).toBe(2);
    // The sends run on after the claim returns.
    await lib.delivery.deliveriesSettled();
    const rows = await query<{ id: bigint; status: string; last_error: string | null }>(
      "select id, status, last_error from deliveries where id = any($1::bigint[]) order by id",
      [[good, bad, good2].map(String)],
    );
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      [good, "delivered"],
      [bad, "dead"],
      [good2, "delivered"],
    ]);
    expect(rows[1]?.last_error).toMatch(/^set aside: .*out of range/);
    expect(
      receiver
        .received()
        .map((r) => r.path)
        .sort(),
    ).toEqual(["/hook/dv-good", "/hook/dv-good-2"]);
    const setAside = await setAsideRows("delivery");
    expect(setAside.map((r) => r.item_key)).toEqual([String(bad)]);
    expect(setAside[0]?.reason).toMatch(/out of range/);
    expect(await setAsideCounted("delivery")).toBe(counted + 1);
    expect(await lib.delivery.sendDueDeliveries()).toBe(0);
  });
});
