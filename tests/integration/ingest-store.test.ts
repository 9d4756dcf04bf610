import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { ChainDetail as ChainDetailView, SessionView, Stats } from "@/lib/dashboard/api-types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { seedCases } from "@/tests/support/seed-cases";
import { createTestDatabase } from "@/tests/support/test-database";
import { build, buildCall, inFlightWrite, t } from "@/tests/support/record-builders";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ingest: ReturnType<typeof apiClient>;
let read: ReturnType<typeof apiClient>;

beforeAll(async () => {
  db = await createTestDatabase();
  const key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  app = await startApp(db.url, { RECEIPT_DISABLE_WORKERS: "1" });
  ingest = apiClient(app.baseUrl, key);
  read = ingest;
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

type Result = {
  recordId: string;
  state: string;
  reasons: string[];
  duplicate: boolean;
  retrySafe: boolean | null;
};
type ChainDetail = {
  chain: { state: string; reasons: string[]; currentRecordId: string; recordCount: number };
  records: { recordId: string; current: boolean; body: HealthRecord }[];
  history: { fromState: string | null; toState: string; reason: string; cause: string }[];
};

async function post(records: unknown[]): Promise<Result[]> {
  const response = await ingest.post(records);
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: Result[] }).results;
}
async function chain(id: string): Promise<ChainDetail> {
  const response = await read.get(`/api/v1/chains/${encodeURIComponent(id)}`);
  expect(response.status).toBe(200);
  return (await response.json()) as ChainDetail;
}

const onChain = (
  chainId: string,
  recordId: string,
  observedAt: string,
  change: (r: HealthRecord) => void = () => {},
) =>
  build((r) => {
    r.chainId = chainId;
    r.recordId = recordId;
    r.observedAt = observedAt;
    r.session.id = `sess:${chainId}`;
    change(r);
  });

describe("the seed fixture through the API", () => {
  it("stores the nine cases and reads every chain back in its expected state", async () => {
    const cases = seedCases();
    const results = await post(cases.map((c) => c.record));
    expect(results.map((r) => r.state)).toEqual(cases.map((c) => c.expectedState));
    expect(results.map((r) => r.reasons[0])).toEqual(cases.map((c) => c.expectedReason));
    for (const c of cases) {
      const detail = await chain(c.record.chainId);
      expect(detail.chain.state).toBe(c.expectedState);
      expect(detail.records[0]?.body).toEqual(c.record);
      expect(detail.history).toEqual([
        expect.objectContaining({ fromState: null, toState: c.expectedState, cause: "record" }),
      ]);
    }
  });

  it("sending the same batch again stores nothing new and reports every record as a duplicate", async () => {
    const results = await post(seedCases().map((c) => c.record));
    expect(results.every((r) => r.duplicate)).toBe(true);
    const detail = await chain(seedCases()[0]?.record.chainId ?? "");
    expect(detail.chain.recordCount).toBe(1);
  });

  it("accepts the same records as NDJSON", async () => {
    const body = seedCases()
      .map((c) => JSON.stringify(c.record))
      .join("\n");
    const response = await ingest.postRaw(body, "application/x-ndjson");
    expect(response.status).toBe(200);
    expect(((await response.json()) as { results: Result[] }).results).toHaveLength(9);
  });
});

describe("idempotency under concurrency", () => {
  it("five identical batches racing store each record exactly once", async () => {
    const batch = Array.from({ length: 50 }, (_, i) =>
      onChain(`chain:race-${i}`, `rec:race-${i}`, t(60_000)),
    );
    const responses = await Promise.all(Array.from({ length: 5 }, () => post(batch)));
    for (let i = 0; i < batch.length; i++) {
      const fresh = responses.filter((results) => results[i]?.duplicate === false);
      expect(fresh).toHaveLength(1);
    }
    const detail = await chain("chain:race-7");
    expect(detail.chain.recordCount).toBe(1);
    expect(detail.history).toHaveLength(1);
  });

  it("the same record with its keys in another order is a duplicate, not a conflict", async () => {
    const record = onChain("chain:reordered", "rec:reordered", t(60_000));
    await post([record]);
    const reversed = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(reversed)
        : value && typeof value === "object"
          ? Object.fromEntries(
              Object.entries(value)
                .reverse()
                .map(([k, v]) => [k, reversed(v)]),
            )
          : value;
    const response = await ingest.post([reversed(record)]);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { results: Result[] }).results[0]?.duplicate).toBe(true);
  });

  it("a batch mixing a stored record with new ones stores the new ones and flags only the stored one", async () => {
    const stored = onChain("chain:mixed-a", "rec:mixed-a", t(60_000));
    await post([stored]);
    const fresh = onChain("chain:mixed-b", "rec:mixed-b", t(60_000));
    const results = await post([fresh, stored]);
    expect(results.map((r) => [r.recordId, r.duplicate])).toEqual([
      ["rec:mixed-b", false],
      ["rec:mixed-a", true],
    ]);
    expect((await chain("chain:mixed-b")).chain.recordCount).toBe(1);
    expect((await chain("chain:mixed-a")).history).toHaveLength(1);
  });

  it("stores a body with backslashes, quotes, tabs, newlines and non-ASCII text exactly as sent", async () => {
    // Records are loaded with COPY, whose text format gives the backslash, tab and newline a meaning of their own.
    const record = onChain("chain:escapes", "rec:escapes", t(60_000), (r) => {
      r.labels = { note: 'tab\t "quoted" back\\slash \\N new\nline\r\n é 🚀 \u2028 {a,"b"}' };
    });
    await post([record]);
    const detail = await chain("chain:escapes");
    expect(detail.records[0]?.body).toEqual(record);
    expect(detail.records[0]?.body.labels?.note).toContain("\\N");
  });

  it("a record repeated inside one batch is stored once, the repeat flagged duplicate", async () => {
    const record = onChain("chain:twice", "rec:twice", t(60_000));
    const results = await post([record, record]);
    expect(results.map((r) => r.duplicate)).toEqual([false, true]);
  });
});

describe("chain state and history", () => {
  it("working → healthy appends history; a late older record is kept but does not overwrite the state", async () => {
    const chainId = "chain:lifecycle";
    const started = onChain(chainId, "rec:lc-start", t(2_000), (r) => {
      const call = r.call;
      if (call) inFlightWrite(call);
    });
    const verified = onChain(chainId, "rec:lc-verified", t(60_000));
    expect((await post([started]))[0]?.state).toBe("working");
    expect((await post([verified]))[0]?.state).toBe("healthy");
    const late = onChain(chainId, "rec:lc-late", t(30_000), (r) => {
      if (r.call) delete r.call.outcome;
    });
    const [lateResult] = await post([late]);
    expect(lateResult?.state).toBe("unverified");
    const detail = await chain(chainId);
    expect(detail.chain.state).toBe("healthy");
    expect(detail.chain.currentRecordId).toBe("rec:lc-verified");
    expect(detail.records.map((r) => r.recordId)).toEqual(["rec:lc-start", "rec:lc-late", "rec:lc-verified"]);
    expect(detail.history.map((h) => [h.fromState, h.toState, h.reason])).toEqual([
      [null, "working", "request.in_flight"],
      ["working", "healthy", "outcome.verified"],
    ]);
  });

  it("records of one chain in one batch are applied in observedAt order, each change in history", async () => {
    const chainId = "chain:in-one-batch";
    const records = [
      onChain(chainId, "rec:ob-3", t(60_000)),
      onChain(chainId, "rec:ob-1", t(2_000), (r) => r.call && inFlightWrite(r.call)),
      onChain(chainId, "rec:ob-2", t(40_000), (r) => r.call && delete r.call.outcome),
    ];
    await post(records);
    const detail = await chain(chainId);
    expect(detail.chain.currentRecordId).toBe("rec:ob-3");
    expect(detail.history.map((h) => h.toState)).toEqual(["working", "unverified", "healthy"]);
  });

  it("equal observedAt: the record received last wins", async () => {
    const chainId = "chain:tie";
    await post([onChain(chainId, "rec:tie-a", t(60_000))]);
    await post([onChain(chainId, "rec:tie-b", t(60_000), (r) => r.call && delete r.call.outcome)]);
    expect((await chain(chainId)).chain.currentRecordId).toBe("rec:tie-b");
  });
});

describe("reading", () => {
  type Page = {
    chains: { chainId: string; state: string; matchedBy: string; shadowed: { state: string } | null }[];
    nextCursor: string | null;
  };
  const list = async (query: string): Promise<Page> => {
    const response = await read.get(`/api/v1/chains?${query}`);
    expect(response.status).toBe(200);
    return (await response.json()) as Page;
  };

  it("filters by state, server, tool, label, session and time", async () => {
    expect((await list("state=false_success")).chains.map((c) => c.chainId)).toContain(
      "chain:reports-draft-i",
    );
    expect((await list("state=false_success")).chains.every((c) => c.state === "false_success")).toBe(true);
    const byTool = await list("tool=create_report&limit=200");
    expect(byTool.chains.length).toBeGreaterThan(0);
    const byLabel = await list("label=team:data-platform&label=env:prod");
    expect(byLabel.chains.map((c) => c.chainId)).toContain("chain:export-2026-11-30-a");
    const bySession = await list("session=sess:b81d03e6aa");
    expect(new Set(bySession.chains.map((c) => c.chainId))).toEqual(
      new Set(["chain:export-2026-11-30-a", "chain:export-task-e"]),
    );
    expect((await list("until=2000-01-01T00:00:00Z")).chains).toEqual([]);
  });

  it("state= also finds chains whose shadowed state matches, flagged as shadowed", async () => {
    const shadowed = buildCall((call, r) => {
      r.recordId = "rec:shadowed";
      r.chainId = "chain:shadowed";
      r.session.auth = { challenge: { status: 401, at: t(50_000), error: "invalid_token" } };
      inFlightWrite(call);
      r.observedAt = t(120_000);
    });
    const [result] = await post([shadowed]);
    expect(result?.state).toBe("needs_auth");
    const page = await list("state=effect_unknown&limit=200");
    const found = page.chains.find((c) => c.chainId === "chain:shadowed");
    expect(found).toMatchObject({
      state: "needs_auth",
      matchedBy: "shadowed",
      shadowed: { state: "effect_unknown" },
    });
  });

  it("cursor pagination walks every chain exactly once, newest first", async () => {
    const all = await list("limit=200");
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list(`limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.chains.map((c) => c.chainId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.chains.map((c) => c.chainId));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("a session lists its chains most dangerous first", async () => {
    const response = await read.get("/api/v1/sessions/sess:4c1f9a7e2b");
    const session = (await response.json()) as { worstState: string; chains: { state: string }[] };
    expect(session.worstState).toBe("effect_unknown");
    expect(session.chains.map((c) => c.state)).toEqual([
      "effect_unknown",
      "false_success",
      "needs_auth",
      "incompatible_session",
      "stale_catalog",
      "protocol_error",
      "tool_failed",
    ]);
  });

  it("a session answers each chain's call times from its current record, for the timeline", async () => {
    const session = (await (await read.get("/api/v1/sessions/sess:4c1f9a7e2b")).json()) as SessionView;
    expect(session.calls.map((call) => call.chainId).sort()).toEqual(
      session.chains.map((chain) => chain.chainId).sort(),
    );
    for (const call of session.calls) {
      const detail = (await (
        await read.get(`/api/v1/chains/${encodeURIComponent(call.chainId)}`)
      ).json()) as ChainDetailView;
      const body = detail.records.find((record) => record.current)?.body;
      expect(call, call.chainId).toEqual({
        chainId: call.chainId,
        state: detail.chain.state,
        tool: detail.chain.tool,
        startedAt: body?.call?.startedAt ?? null,
        respondedAt: body?.call?.response?.at ?? null,
        taskStatus: body?.call?.task?.status ?? null,
        taskUpdatedAt: body?.call?.task?.updatedAt ?? null,
        deadlineMs: body?.call?.deadlineMs ?? null,
        initializedAt: body?.session.protocol?.initializedAt ?? null,
        catalogRefreshedAt: body?.catalog?.refreshedAt ?? null,
      });
    }
    // The seed's session has calls that answered and a handshake: something for the timeline to draw.
    expect(session.calls.some((call) => call.respondedAt)).toBe(true);
    expect(session.calls.some((call) => call.initializedAt)).toBe(true);
  });

  it("stats count chains per state, with the two triage queues including shadowed chains", async () => {
    const stats = (await (await read.get("/api/v1/stats")).json()) as {
      states: Record<string, number>;
      queues: { effectUnknown: number; falseSuccess: number };
      total: number;
    };
    const page = await list("limit=200");
    expect(stats.total).toBe(page.chains.length);
    // All time has no window before it, nor has a window that starts in the future.
    expect((stats as unknown as Stats).previous).toBeNull();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const ahead = (await (await read.get(`/api/v1/stats?since=${future}`)).json()) as Stats;
    expect(ahead.total).toBe(0);
    expect(ahead.previous).toBeNull();
    expect(stats.states.false_success).toBe(page.chains.filter((c) => c.state === "false_success").length);
    expect(stats.queues.effectUnknown).toBe(
      page.chains.filter((c) => c.state === "effect_unknown" || c.shadowed?.state === "effect_unknown")
        .length,
    );
  });
});
