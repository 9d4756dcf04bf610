// The retry guard's story in the demo (issue 40): an invoicing agent's write committed and then timed out; its retry
// is refused (reconcile_first); a destination check reads the invoice service and finds the invoice; the chain is
// reconciled by check:demo-invoices, and the next retry is told already_committed. Every step goes through the
// services the API uses; the invoice service is a real HTTP server this process runs while it seeds. Its operation
// page (/operations/<key>) shows the whole story.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ZCheck } from "../../lib/checks/config";
import type { HealthRecord } from "../../lib/contract";
import type { Caller } from "../../lib/server/http/authenticate";
import { catalogHash, CLIENTS, SERVERS } from "./demo-world";
import { session } from "./demo-records";

const CHECK_NAME = "demo-invoices";
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The outbound policy refuses loopback unless allowed, and is read once per process: the seed allows 127.0.0.1 for
 * itself (its own invoice service) before anything reads the settings. The app's policy is not touched.
 */
export function allowDemoDestination(): void {
  const allowed = process.env.RECEIPT_OUTBOUND_ALLOW;
  process.env.RECEIPT_OUTBOUND_ALLOW = allowed ? `${allowed},127.0.0.1/32` : "127.0.0.1/32";
}

export async function seedGuardStory(runTag: string, nowMs: number): Promise<string> {
  const key = `op:invoice-${runTag}`;
  const invoices = createServer((req, res) => {
    const found = req.url === `/invoices/${encodeURIComponent(key)}`;
    res.writeHead(found ? 200 : 404, { "content-type": "application/json" });
    res.end(found ? JSON.stringify({ status: "sent" }) : "{}");
  });
  await new Promise<void>((done) => invoices.listen(0, "127.0.0.1", done));
  const port = (invoices.address() as AddressInfo).port;
  try {
    return await tellStory(key, `http://127.0.0.1:${port}`, nowMs);
  } finally {
    invoices.closeAllConnections();
    await new Promise((done) => invoices.close(done));
  }
}

async function tellStory(key: string, invoiceService: string, nowMs: number): Promise<string> {
  const { saveChecksConfig, currentChecks } = await import("../../lib/server/checks/checks-config-service");
  const { guardAttempt } = await import("../../lib/server/operations/operations-service");
  const { prepareRecords } = await import("../../lib/server/ingest/prepare-records");
  const { saveRecords } = await import("../../lib/server/ingest/store-records");
  const { checkChain } = await import("../../lib/server/checks/check-chain-service");
  // The demo's check matches only the story's chains (by its label), never a real one.
  const check = ZCheck.parse({
    name: CHECK_NAME,
    match: { tool: "create_invoice", labels: { demo: "guard-story" } },
    http: {
      url: `${invoiceService}/invoices/{operationKey}`,
      outcome: { pointer: "/status", equals: "sent" },
    },
    attempts: 1,
    timeoutMs: 5_000,
  });
  const { checks, ...rest } = await currentChecks();
  await saveChecksConfig({
    config: { ...rest, checks: [...checks.filter((c) => c.name !== CHECK_NAME), check] },
    actor: { actorUserId: null, actor: "demo-seed" },
    comment: "the demo's invoice check (npm run db:seed)",
  });
  const agent: Caller = { kind: "key", keyId: "demo", keyName: "billing-agent", scopes: ["ingest"] };
  const ask = (holder: string) =>
    guardAttempt(key, { tool: "create_invoice", server: "billing-api", holder, leaseMs: 30_000 }, agent);
  const steps: string[] = [];
  steps.push(`first attempt: ${(await ask("billing-agent")).body.decision}`);
  const record = timedOutInvoice(key, nowMs);
  await saveRecords(await prepareRecords([record]));
  steps.push(`the write timed out after committing (${record.chainId}, effect_unknown)`);
  steps.push(`retry: ${(await ask("billing-agent-retry")).body.decision}`);
  const runs = await checkChain(record.chainId, "on_demand");
  steps.push(`check ${CHECK_NAME}: ${runs.runs[0]?.effect ?? "no run"}`);
  steps.push(`retry after the check: ${(await ask("billing-agent-retry")).body.decision}`);
  return `demo retry guard story (/operations/${encodeURIComponent(key)}): ${steps.join("; ")}`;
}

/** billing-api's create_invoice, sent a minute ago and never answered: its effect is unknown. */
function timedOutInvoice(key: string, nowMs: number): HealthRecord {
  const server = SERVERS.find((s) => s.name === "billing-api");
  const client = CLIENTS[0];
  if (!server || !client) throw new Error("the demo world has billing-api and a client");
  const startedAt = nowMs - 90_000;
  return {
    schemaVersion: 1,
    recordId: `rec:${key}`,
    chainId: `chain:${key}`,
    observedAt: iso(nowMs - 30_000),
    labels: { env: "prod", team: server.team, agent: "billing-agent", demo: "guard-story" },
    session: session(server, client, `sess:${key}`, startedAt),
    catalog: {
      pages: 1,
      complete: true,
      toolCount: server.tools.length,
      schemaHash: catalogHash(server),
      refreshedAt: iso(startedAt - 30_000),
      ttlMs: 300_000,
      listChangedAt: [],
    },
    call: {
      requestId: 4242,
      tool: "create_invoice",
      inCatalog: true,
      sideEffect: "write",
      operationKey: key,
      expectedVerifier: "db_row",
      startedAt: iso(startedAt),
      deadlineMs: 30_000,
      inactivityMs: 15_000,
      progress: [],
    },
  };
}
