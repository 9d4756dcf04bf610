import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect } from "vitest";
import type { ChainListItem } from "@/lib/dashboard/api-types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { chainsOfRun, listChainsOfRun, rowsContaining, runAgent } from "@/tests/support/otlp-agent";
import { createTestDatabase } from "@/tests/support/test-database";

type AgentOptions = Omit<Parameters<typeof runAgent>[0], "endpoint" | "key">;

/**
 * One running Receipt (production build) on its own database for a test file, a key with the ingest and read
 * scopes, and the agent runs made against it: each run gets a unique id (its MCP client and service name), and
 * every argument the tests send carries `marker`, which must end up stored nowhere.
 */
export function receiptForThisFile() {
  const marker = `otlp-marker-${randomBytes(6).toString("hex")}`;
  const runIds: string[] = [];
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let app: RunningApp | undefined;
  let key = "";
  let api: ReturnType<typeof apiClient> | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await startApp(db.url);
    key = await createTestKey(db.url, "otlp-e2e", ["ingest", "read"]);
    api = apiClient(app.baseUrl, key);
  });
  afterAll(async () => {
    await app?.stop();
    await db?.drop();
  });

  const running = () => {
    if (!app || !api || !db) throw new Error("Receipt is not running");
    return { app, api, db };
  };

  return {
    marker,
    get baseUrl() {
      return running().app.baseUrl;
    },
    get key() {
      return key;
    },
    runId(name: string): string {
      const id = `otlp-${name}-${randomBytes(4).toString("hex")}`;
      runIds.push(id);
      return id;
    },
    agent(config: AgentOptions) {
      return runAgent({ endpoint: running().app.baseUrl, key, ...config });
    },
    chains(runId: string): Promise<Map<string, ChainListItem>> {
      return chainsOfRun(running().api.get, runId);
    },
    allChains(runId: string): Promise<ChainListItem[]> {
      return listChainsOfRun(running().api.get, runId);
    },
    rowsContaining(needle: string) {
      return rowsContaining(running().db.url, needle);
    },
    /** No table holds the marker, nor did the server print it; the search finds what is stored (the first run's id). */
    async expectMarkerStoredNowhere(runsExpected: number) {
      expect(runIds.length, "the agent runs of this file happened").toBe(runsExpected);
      const first = runIds[0] ?? "";
      expect(Object.keys(await rowsContaining(running().db.url, first)), first).not.toEqual([]);
      expect(await rowsContaining(running().db.url, marker)).toEqual({});
      expect(running().app.output()).not.toContain(marker);
    },
  };
}

/** A chain's state and reasons, for one assertion. */
export function verdict(chain: ChainListItem | undefined) {
  return { state: chain?.state, reasons: chain?.reasons };
}
