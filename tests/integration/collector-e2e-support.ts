import { expect } from "vitest";
import { ReceiptSink } from "@/packages/collector/src";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";

export type ChainDetail = {
  chain: { chainId: string; state: string; layer: string; reasons: string[]; tool: string | null };
  records: { recordId: string; state: string; reasons: string[]; body: unknown }[];
  history: { fromState: string | null; toState: string; reason: string }[];
};

/**
 * One running Receipt (production build, `next start`) on its own database per test file, a key
 * with both scopes, and the collector's real sink posting to it. Cases read each chain back from
 * the read API, so every assertion is about what Receipt stored and decided, not the collector.
 */
export async function startReceipt() {
  const db = await createTestDatabase();
  let app: RunningApp | undefined;
  try {
    app = await startApp(db.url);
  } catch (error) {
    await db.drop();
    throw error;
  }
  const key = await createTestKey(db.url, "collector-e2e", ["ingest", "read"]);
  const sink = new ReceiptSink({ baseUrl: app.baseUrl, ingestionKey: key, flushIntervalMs: 0 });
  const api = apiClient(app.baseUrl, key);
  const running = app;
  return {
    sink,
    key,
    app: running,
    /** Delivers everything buffered (throws if anything was refused), then reads the chain from the API. */
    async chain(chainId: string): Promise<ChainDetail> {
      await sink.flush();
      const response = await api.get(`/api/v1/chains/${encodeURIComponent(chainId)}`);
      expect(response.status, `GET chain ${chainId}`).toBe(200);
      return (await response.json()) as ChainDetail;
    },
    async stop() {
      await running.stop();
      await db.drop();
    },
  };
}
export type Receipt = Awaited<ReturnType<typeof startReceipt>>;

/** The chain's state and deciding reason, as Receipt stored them. */
export async function expectChain(receipt: Receipt, chainId: string, state: string, reason: string) {
  const detail = await receipt.chain(chainId);
  expect({ state: detail.chain.state, reason: detail.chain.reasons[0] }, `chain ${chainId}`).toEqual({
    state,
    reason,
  });
  return detail;
}

/** Unique chain ids per run, readable in the dashboard. */
let counter = 0;
export const chainId = (name: string) => `e2e-${name}-${process.pid}-${++counter}`;
