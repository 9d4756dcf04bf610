import { afterEach, describe, expect, it } from "vitest";
import {
  type CollectorRecord,
  createCollector,
  DeliveryError,
  type DeliveryFailure,
  guardRecord,
  MASKED_VALUE,
  ReceiptSink,
} from "@/packages/collector/src";
import { validateRecord } from "@/lib/contract";
import { ApiError } from "@/lib/server/http/api-error";
import { prepareRecords } from "@/lib/server/ingest/prepare-records";
import { SAMPLES } from "@/tests/support/secret-samples";
import { fixtureServer, localHttp } from "./helpers";

const TOKEN = SAMPLES.github_token[0] as string;

const record = (n: number, extra: Partial<CollectorRecord> = {}): CollectorRecord => ({
  schemaVersion: 1,
  recordId: `bad-${n}:start`,
  chainId: `bad-${n}`,
  observedAt: new Date().toISOString(),
  session: {
    id: `session-${n}`,
    client: { name: "t", version: "1" },
    transport: "stdio",
    protocol: { era: "legacy", requestedVersion: "2025-11-25", clientSupportedVersions: ["2025-11-25"] },
    capabilities: { server: [], client: [], required: { server: [], client: [] } },
  },
  ...extra,
});

describe("guardRecord: the server's validation and secret guard, before sending", () => {
  it("a server version that looks like a token is masked; the record still goes, valid", () => {
    const input = record(1);
    input.session.server = { name: "srv", version: TOKEN };
    const guarded = guardRecord(input);
    expect(guarded.ok).toBe(true);
    if (!guarded.ok) return;
    expect(guarded.masked).toEqual([{ path: "$.session.server.version", code: "secret_masked" }]);
    expect(guarded.record.session.server?.version).toBe(MASKED_VALUE);
    expect(guarded.json).not.toContain(TOKEN);
    expect(validateRecord(JSON.parse(guarded.json)).ok).toBe(true);
    expect(input.session.server.version).toBe(TOKEN); // the caller's record is left as it was
  });

  it("a generated value under a label named like a credential is masked, as the server would refuse it", () => {
    const blob = ["3f9a2c7e1b8d", "4f6a0c5e9b2d7f1a"].join("");
    const input = record(4, { labels: { api_key: blob, sha256: `${blob}${blob}` } });
    const guarded = guardRecord(input);
    expect(guarded.ok).toBe(true);
    if (!guarded.ok) return;
    expect(guarded.masked).toEqual([{ path: "$.labels.api_key", code: "secret_masked" }]);
    expect(guarded.json).not.toContain(`"${blob}"`);
    expect(validateRecord(JSON.parse(guarded.json)).ok).toBe(true);
  });

  it("a field the schema refuses is removed when the record is valid without it", () => {
    const input = { ...record(2), extra: "field" } as unknown as CollectorRecord;
    const guarded = guardRecord(input);
    expect(guarded.ok && guarded.masked).toEqual([{ path: "$.extra", code: "unrecognized_keys" }]);
  });

  it("a record without a required part is dropped with its issues (paths and codes, no values)", () => {
    const input = record(3);
    (input as { session?: unknown }).session = undefined;
    const guarded = guardRecord(input);
    expect(guarded.ok).toBe(false);
    expect(!guarded.ok && guarded.issues.map((issue) => issue.path)).toContain("$.session");
  });

  it("a NUL or unpaired surrogate in a peer's name becomes U+FFFD: the record goes, valid, said so", () => {
    const input = record(5);
    input.session.server = { name: "srv\u0000x", version: "1.0\uD800" };
    const guarded = guardRecord(input);
    expect(guarded.ok).toBe(true);
    if (!guarded.ok) return;
    expect(guarded.record.session.server).toEqual({ name: "srv\uFFFDx", version: "1.0\uFFFD" });
    expect(guarded.masked).toEqual([
      { path: "$.session.server.name", code: "control_replaced" },
      { path: "$.session.server.version", code: "unstorable_replaced" },
    ]);
    expect(validateRecord(JSON.parse(guarded.json)).ok).toBe(true);
  });

  it("control characters (an ANSI escape, DEL, C1) in a peer's name or version are replaced, the text kept", () => {
    const input = record(6);
    input.session.client = { name: "agent\u001b[31m", version: "2\u007f\u0085" };
    const guarded = guardRecord(input);
    expect(guarded.ok && guarded.record.session.client).toEqual({
      name: "agent\uFFFD[31m",
      version: "2\uFFFD\uFFFD",
    });
    expect(guarded.ok && guarded.masked).toEqual([
      { path: "$.session.client.name", code: "control_replaced" },
      { path: "$.session.client.version", code: "control_replaced" },
    ]);
  });

  it("an over-long name, label, tool or receipt is cut to the contract's length, never inside an emoji", () => {
    const input = record(7, { labels: { team: "t".repeat(300) } });
    input.session.server = { name: `${"n".repeat(127)}😀tail`, version: "v".repeat(65) };
    const guarded = guardRecord(input);
    expect(guarded.ok).toBe(true);
    if (!guarded.ok) return;
    expect(guarded.record.session.server).toEqual({ name: "n".repeat(127), version: "v".repeat(64) });
    expect(guarded.record.labels?.team).toBe("t".repeat(256));
    expect(guarded.masked).toEqual(
      expect.arrayContaining([
        { path: "$.session.server.name", code: "truncated" },
        { path: "$.session.server.version", code: "truncated" },
        { path: "$.labels.team", code: "truncated" },
      ]),
    );
    expect(guarded.masked).toHaveLength(3);
    expect(validateRecord(JSON.parse(guarded.json)).ok).toBe(true);
  });

  it("a token-like value with a NUL in it is masked whole, not repaired", () => {
    const input = record(8);
    input.session.server = { name: `${TOKEN}\u0000`, version: "1" };
    const guarded = guardRecord(input);
    expect(guarded.ok && guarded.record.session.server?.name).toBe(MASKED_VALUE);
    expect(guarded.ok && guarded.json).not.toContain(TOKEN);
  });

  it("a clean record passes untouched, serialised once", () => {
    const input = record(4);
    const guarded = guardRecord(input);
    expect(guarded).toEqual({ ok: true, record: input, json: JSON.stringify(input), masked: [] });
  });
});

describe("one bad record never loses the others", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /**
   * A Receipt one version behind: its own ingestion code (`prepareRecords`, `ApiError`) answers, but it does not
   * know the `labels` field yet, so it refuses labelled records with the real 422 body (issues with indexes).
   */
  async function olderReceipt() {
    const posts: string[][] = [];
    const server = await localHttp(async (_req, res, body) => {
      const records = (JSON.parse(body) as { records: Record<string, unknown>[] }).records;
      posts.push(records.map((r) => r.recordId as string));
      const asOlderServerSees = records.map(({ labels, ...rest }) =>
        labels === undefined ? rest : { ...rest, tags: labels },
      );
      try {
        const prepared = await prepareRecords(asOlderServerSees);
        const results = prepared.map((p) => ({ recordId: p.record.recordId, duplicate: false }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results }));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const response = error.toResponse();
        res.writeHead(response.status, { "content-type": "application/json" }).end(await response.text());
      }
    });
    closers.push(server.close);
    return { url: server.url, posts };
  }

  it("a 422 naming one record: it is dropped and reported, the rest of the batch is sent again", async () => {
    const receiver = await olderReceipt();
    const failures: DeliveryFailure[] = [];
    const sink = new ReceiptSink({
      baseUrl: receiver.url,
      ingestionKey: "rk_test_key",
      flushIntervalMs: 0,
      onError: (failure) => failures.push(failure),
    });
    sink.submit([record(1), record(2, { labels: { team: "a" } }), record(3)]);
    const error = (await sink.flush().catch((e: unknown) => e)) as DeliveryError;
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error.report.delivered).toBe(2);
    expect(error.report.results.map((r) => r.recordId)).toEqual(["bad-1:start", "bad-3:start"]);
    expect(error.report.failed).toEqual([
      {
        kind: "rejected",
        recordIds: ["bad-2:start"],
        count: 1,
        status: 422,
        code: "invalid_records",
        issues: [{ path: "$.tags", code: "unrecognized_keys" }],
        attempts: 1,
      },
    ]);
    expect(failures).toEqual(error.report.failed);
    expect(receiver.posts).toEqual([
      ["bad-1:start", "bad-2:start", "bad-3:start"],
      ["bad-1:start", "bad-3:start"],
    ]);
    expect(sink.counts.dropped).toEqual({ overflow: 0, invalid: 0, rejected: 1 });
  });

  it("a real session whose server version looks like a token: masked, sent with an unrelated healthy session's records", async () => {
    const received: CollectorRecord[] = [];
    const server = await localHttp((_req, res, body) => {
      const records = (JSON.parse(body) as { records: CollectorRecord[] }).records;
      // Receipt's own rule: any record with a credential refuses the whole batch.
      const refused = records.some((r) => !validateRecord(r).ok);
      if (!refused) received.push(...records);
      res.writeHead(refused ? 422 : 200, { "content-type": "application/json" }).end('{"results":[]}');
    });
    closers.push(server.close);
    const sink = new ReceiptSink({ baseUrl: server.url, ingestionKey: "rk_test_key", flushIntervalMs: 0 });
    const receipt = createCollector({ sink, clientInfo: { name: "bad-record-test", version: "1.0.0" } });
    const leaky = await receipt.connect(fixtureServer({ SERVER_VERSION: TOKEN }));
    const healthy = await receipt.connect(fixtureServer());
    try {
      const a = await receipt.callTool(leaky, { name: "tool-1", arguments: { n: 1 }, deadlineMs: 10_000 });
      const b = await receipt.callTool(healthy, { name: "tool-2", arguments: { n: 2 }, deadlineMs: 10_000 });
      const report = await sink.flush();
      expect(report.failed).toEqual([]);
      expect(report.masked).toContainEqual({
        recordId: a.record.recordId,
        path: "$.session.server.version",
        code: "secret_masked",
      });
      const ids = received.map((r) => r.recordId);
      expect(ids).toEqual(expect.arrayContaining([...a.records, ...b.records].map((r) => r.recordId)));
      expect(JSON.stringify(received)).not.toContain(TOKEN);
      expect(received.find((r) => r.recordId === a.record.recordId)?.session.server?.version).toBe(
        MASKED_VALUE,
      );
    } finally {
      await leaky.close();
      await healthy.close();
    }
  });
  it("a real server whose name holds a NUL and whose version a control character: the chain is stored, the names repaired", async () => {
    // Receipt's own ingestion (prepareRecords: validation, secret guard, classification) answers, as it would.
    const stored = new Map<string, { record: CollectorRecord; state: string }>();
    const server = await localHttp(async (_req, res, body) => {
      try {
        const prepared = await prepareRecords((JSON.parse(body) as { records: unknown[] }).records);
        for (const p of prepared)
          stored.set(p.record.recordId, {
            record: p.record as CollectorRecord,
            state: p.classification.state,
          });
        const results = prepared.map((p) => ({ recordId: p.record.recordId, state: p.classification.state }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results }));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const response = error.toResponse();
        res.writeHead(response.status, { "content-type": "application/json" }).end(await response.text());
      }
    });
    closers.push(server.close);
    const sink = new ReceiptSink({ baseUrl: server.url, ingestionKey: "rk_test_key", flushIntervalMs: 0 });
    const receipt = createCollector({ sink, clientInfo: { name: "bad-record-test", version: "1.0.0" } });
    const odd = await receipt.connect(
      fixtureServer({
        SERVER_INFO_JSON: JSON.stringify({ name: "odd\u0000srv", version: `1.0\u001b[0m${"x".repeat(80)}` }),
      }),
    );
    try {
      const a = await receipt.callTool(odd, { name: "tool-1", arguments: { n: 1 }, deadlineMs: 10_000 });
      const report = await sink.flush();
      expect(report.failed).toEqual([]);
      expect(report.masked).toEqual(
        expect.arrayContaining([
          { recordId: a.record.recordId, path: "$.session.server.name", code: "control_replaced" },
          { recordId: a.record.recordId, path: "$.session.server.version", code: "control_replaced" },
        ]),
      );
      const kept = stored.get(a.record.recordId);
      expect(kept?.record.chainId).toBe(a.record.chainId);
      expect(kept?.record.session.server).toEqual({
        name: "odd\uFFFDsrv",
        version: `1.0\uFFFD[0m${"x".repeat(57)}`,
      });
      // The server answered and agreed a version: the chain is classified on its evidence, not as no answer.
      expect(kept?.state).toBe("unverified");
    } finally {
      await odd.close();
    }
  });
});
