import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";
import { buildRecords, type OtlpSpan, redactSpan, sessionKeyOf } from "@/lib/otlp";
import { diffChainRollups } from "@/lib/server/db/chain-rollup-check";
import { rebuildChainRollups } from "@/lib/server/db/chain-rollups";
import type { Sql } from "@/lib/server/db/sql";
import { normaliseExport } from "@/lib/server/otlp/normalise-spans";
import { decodeExportRequest } from "@/lib/server/otlp/otlp-proto";
import { apiClient } from "@/tests/support/app-server";
import { otlpTestApp } from "@/tests/support/otlp-app";
import { mcpSpan, protobufBody } from "@/tests/support/otlp-exports";
import { legacyRecord } from "@/tests/support/record-builders";
import { SAMPLES } from "@/tests/support/secret-samples";

const TOKEN = SAMPLES.github_token[0] as string;

// `npm run reclassify` (issue 43): a database written before contract v1.2 holds OTLP chains read the old way — a call
// group without its initialize span stored as `incompatible_session` (`session.not_initialized`), alerting — and
// chains whose stored classification an older classifier made. The one-off command rebuilds every stored OTLP
// session from its spans and re-classifies every chain's current record, through the one write path: chains,
// history, rollups and alerts agree with what a new record would get, and the alert the old reading raised resolves.

const root = path.resolve(import.meta.dirname, "../..");
const otlp = otlpTestApp();

function reclassifyCli(...args: string[]) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/reclassify.ts", ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: otlp.databaseUrl },
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

const sql: Sql = {
  query: async (statement, values = []) =>
    (await otlp.query(typeof statement === "string" ? statement : statement.text, [...values])).rows,
  execute: async (statement, values = []) =>
    (await otlp.query(typeof statement === "string" ? statement : statement.text, [...values])).rowCount ?? 0,
};

/** Recounts the rollups after this file's direct SQL on `chains`, as `npm run rollups -- rebuild` does. */
async function rebuildRollups() {
  await otlp.query("begin");
  await rebuildChainRollups(sql);
  await otlp.query("commit");
}

async function chain(chainId: string) {
  const { rows } = await otlp.query(
    "select state, reasons, current_record_id from chains where chain_id = $1",
    [chainId],
  );
  return rows[0] as { state: string; reasons: string[]; current_record_id: string };
}

/** The open problems of the last 30 days, as the problems page reads them: state and tool. */
async function openProblems() {
  const response = await fetch(`${otlp.baseUrl}/api/v1/problems?window=30d`, {
    headers: { authorization: `Bearer ${otlp.readKey}` },
  });
  expect(response.status).toBe(200);
  const page = (await response.json()) as { problems: { state: string; tool: string | null }[] };
  return page.problems.map((problem) => `${problem.state}/${problem.tool}`).sort();
}

/** Spans written straight into the store, with no role (`unknown`), as a release before span roles stored them. */
async function storeSpansAsAnOlderReleaseDid(spans: OtlpSpan[]) {
  for (const span of spans) {
    const json = JSON.stringify(span);
    await otlp.query(
      `insert into otlp_spans (trace_id, span_id, session_key, content_hash, role, span)
       values ($1, $2, $3, $4, 'unknown', $5::json)`,
      [span.traceId, span.spanId, sessionKeyOf(span), createHash("sha256").update(json).digest("hex"), json],
    );
  }
}

const alertsOf = async (chainId: string) =>
  (
    await otlp.query("select state, status from alerts where chain_id = $1 order by starts_at, state", [
      chainId,
    ])
  ).rows as { state: string; status: string }[];

describe("npm run reclassify", () => {
  it("rebuilds OTLP chains read the old way and re-classifies stale chains; stats, alerts and history agree", async () => {
    // A call group with no initialize span: a tool error and a success, as the OTLP receiver stored them.
    const sdkSpans = [
      mcpSpan({ method: "tools/call", tool: "echo", session: "sess-unseen", startMs: 0 }),
      mcpSpan({
        method: "tools/call",
        tool: "add",
        session: "sess-unseen",
        startMs: 1_000,
        error: true,
        attributes: { "error.type": "tool_error" },
      }),
    ];
    const spans = normaliseExport(decodeExportRequest(protobufBody(sdkSpans))).spans.map(redactSpan);
    const current = buildRecords(spans).records as HealthRecord[];
    expect(current).toHaveLength(2);
    // The old reading: no `observed`, so the unseen handshake reads as a session never initialized.
    const old = current.map((record, i) => {
      const { observed: _, ...rest } = record;
      return { ...rest, recordId: `otlp:pre-v1-2-${i}` };
    });
    for (const record of old) expect(classify(record).reasons[0]).toBe("session.not_initialized");
    expect((await apiClient(otlp.baseUrl, otlp.key).post(old)).status).toBe(200);
    await storeSpansAsAnOlderReleaseDid(spans);
    // A native chain whose stored classification an older classifier made (what a contract change leaves).
    const native = {
      ...legacyRecord(),
      recordId: "rec:reclassify-native",
      chainId: "chain:reclassify-native",
    };
    expect((await apiClient(otlp.baseUrl, otlp.key).post([native])).status).toBe(200);
    const nativeState = (await chain(native.chainId)).state;
    expect(nativeState).toBe(classify(native).state);
    await otlp.query(
      `update chains set state = 'incompatible_session', layer = 'session', reasons = array['session.not_initialized'],
         evidence = null, retry_safe = null, shadowed_state = null, shadowed_reason = null, next_check_at = null
       where chain_id = $1`,
      [native.chainId],
    );
    await rebuildRollups();

    for (const record of old) {
      expect((await chain(record.chainId)).state).toBe("incompatible_session");
      expect(await alertsOf(record.chainId)).toEqual([{ state: "incompatible_session", status: "firing" }]);
    }
    const historyBefore = await otlp.count("select count(*)::int as n from chain_state_changes");
    expect(await openProblems()).toEqual(
      [
        "incompatible_session/add",
        "incompatible_session/echo",
        `incompatible_session/${native.call?.tool}`,
      ].sort(),
    );

    // A dry run says what would change and writes nothing.
    const dry = reclassifyCli("--dry-run");
    expect(dry).toContain(
      "otlp sessions\t1\trecords stored 2\tunchanged 0\tspans left out 0\troles updated 2",
    );
    expect(dry).toContain("chains\t3\trewritten 1\tstate moved 1\tunreadable 0");
    expect((await chain(native.chainId)).state).toBe("incompatible_session");
    expect(await otlp.count("select count(*)::int as n from chain_state_changes")).toBe(historyBefore);

    const out = reclassifyCli();
    expect(out).toContain(
      "otlp sessions\t1\trecords stored 2\tunchanged 0\tspans left out 0\troles updated 2",
    );
    expect(out).toContain("chains\t3\trewritten 1\tstate moved 1\tunreadable 0");
    for (const record of current) {
      const stored = await chain(record.chainId);
      expect(stored.current_record_id).toBe(record.recordId);
      const expected = classify(record);
      expect(stored.state).toBe(expected.state);
      expect(stored.reasons).toEqual(expected.reasons);
      expect(stored.reasons).toContain("session.not_observed");
      // The alert only the old reading raised is resolved; the tool error alerts as itself.
      const alerts = await alertsOf(record.chainId);
      expect(alerts.find((alert) => alert.state === "incompatible_session")?.status).toBe("resolved");
      expect(alerts.filter((alert) => alert.status === "firing").map((alert) => alert.state)).toEqual(
        expected.state === "tool_failed" ? ["tool_failed"] : [],
      );
    }
    expect(current.map((record) => classify(record).state).sort()).toEqual(["tool_failed", "unverified"]);
    expect((await chain(native.chainId)).state).toBe(nativeState);
    const { rows: history } = await otlp.query(
      "select from_state, to_state, cause from chain_state_changes where chain_id = $1 order by at desc limit 1",
      [native.chainId],
    );
    expect(history[0]).toEqual({
      from_state: "incompatible_session",
      to_state: nativeState,
      cause: "reclassify",
    });
    expect(await otlp.count("select count(*)::int as n from otlp_spans where role = 'unknown'")).toBe(0);
    expect(await diffChainRollups(sql)).toEqual([]);
    // Problems are read from the same rollups: the old reading's problems are gone, the calls' own remain (the
    // tool error; the success without an outcome receipt), and the native chain is back to its own state.
    expect(await openProblems()).toEqual(["tool_failed/add", "unverified/echo"]);

    // Once is enough: a second run finds nothing to change.
    const again = reclassifyCli();
    expect(again).toContain(
      "otlp sessions\t1\trecords stored 0\tunchanged 2\tspans left out 0\troles updated 0",
    );
    expect(again).toContain("chains\t3\trewritten 0\tstate moved 0\tunreadable 0");
  });

  it("redacts a span an older release stored with a value today's rules mask: its chains are rebuilt, not left out", async () => {
    const sdkSpans = [
      mcpSpan({
        method: "initialize",
        session: "sess-kept-token",
        startMs: 0,
        durationMs: 20,
        attributes: { "receipt.client.version": TOKEN },
      }),
      mcpSpan({ method: "tools/call", tool: "echo", session: "sess-kept-token", startMs: 1_000 }),
    ];
    // As a release without peer masking stored them: redacted, but with the client version as sent.
    const spans = normaliseExport(decodeExportRequest(protobufBody(sdkSpans))).spans.map((span) => {
      const redacted = redactSpan(span);
      const { "receipt.masked": _, ...attributes } = redacted.attributes;
      const version = span.attributes["receipt.client.version"];
      return {
        ...redacted,
        attributes: version === undefined ? attributes : { ...attributes, "receipt.client.version": version },
      };
    });
    expect(spans.filter((span) => span.attributes["receipt.client.version"] === TOKEN)).toHaveLength(1);
    await storeSpansAsAnOlderReleaseDid(spans);
    const out = reclassifyCli();
    expect(out).toMatch(/\tspans left out 0\t/);
    const { rows } = await otlp.query<{ body: HealthRecord }>(
      `select r.body from chains c join health_records r on r.record_id = c.current_record_id
        where c.chain_id = $1`,
      [`otlp:${spans[1]?.traceId}:${spans[1]?.spanId}`],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.body.session.client.version).not.toBe(TOKEN);
  });
});
