import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract/record";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { liveCase } from "@/tests/support/dashboard-records";
import { dashboardClient } from "@/tests/support/dashboard-session";
import { createTeamUser, signInCookie } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";

// Reconciliation that closes itself (issue 40 §3): an admin configures destination checks; a chain whose effect is
// unknown gets them run by the background job, and what they find (a row, an HTTP 200, a 404) becomes destination
// evidence with actor check:<name>: the chain is classified again and the retry guard answers from it. "Check
// destination now" runs them on demand.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let destination: Server;
let base: string;
let agent: ReturnType<typeof apiClient>;
let ui: ReturnType<typeof dashboardClient>;
let adminSession: string;
let agentKey: string;
let adminKey: string;
let viewer: ReturnType<typeof dashboardClient>;
const reads: string[] = [];

beforeAll(async () => {
  destination = createServer((req, res) => {
    reads.push(req.url ?? "");
    if (req.url === "/reports/op%3Acommitted" || req.url === "/reports/op%3Averified")
      return res.writeHead(200).end('{"state":"published"}');
    if (req.url === "/reports/op%3Adraft") return res.writeHead(200).end('{"state":"draft"}');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => destination.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
  db = await createTestDatabase();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query("create table payments (operation_key text primary key, status text not null)");
  await client.query("insert into payments values ('op:paid', 'captured')");
  await client.end();
  agentKey = await createTestKey(db.url, "agent", ["ingest", "read"]);
  adminKey = await createTestKey(db.url, "ci", ["admin"]);
  const vic = await createTeamUser(db.url, "vic", "viewer");
  const boss = await createTeamUser(db.url, "boss", "admin");
  app = await startApp(db.url, {
    RECEIPT_CHECKS_TICK_MS: "100",
    RECEIPT_CHECKS_RECHECK_MS: "60000",
    RECEIPT_CHECK_PAYMENTS_DB: db.url,
  });
  agent = apiClient(app.baseUrl, agentKey);
  adminSession = await signInCookie(app.baseUrl, boss.username, boss.password);
  ui = dashboardClient(app.baseUrl, adminSession);
  viewer = dashboardClient(app.baseUrl, await signInCookie(app.baseUrl, vic.username, vic.password));
}, 120_000);
afterAll(async () => {
  await app?.stop();
  destination?.closeAllConnections();
  await new Promise((resolve) => destination?.close(resolve));
  await db?.drop();
});

const config = () => ({
  version: 1,
  checks: [
    {
      name: "reports",
      match: { tool: "create_report" },
      http: { url: `${base}/reports/{operationKey}`, outcome: { pointer: "/state", equals: "published" } },
      attempts: 1,
    },
    {
      name: "payments",
      match: { tool: "charge_card" },
      sql: {
        connection: "RECEIPT_CHECK_PAYMENTS_DB",
        query: "select status from payments where operation_key = $1",
      },
      attempts: 1,
    },
  ],
});

const put = (body: unknown) =>
  fetch(`${app.baseUrl}/api/v1/checks/config`, {
    method: "PUT",
    headers: { cookie: adminSession, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

function unknownEffect(tag: string, tool: string, operationKey: string): HealthRecord {
  const record = structuredClone(liveCase(tag, "effect_unknown"));
  if (!record.call) throw new Error("a seed case without a call");
  record.call.tool = tool;
  record.call.operationKey = operationKey;
  return record;
}

/** A call that succeeded with no outcome receipt: `unverified` until something reads the deliverable back. */
function unverifiedCall(tag: string, tool: string, operationKey: string): HealthRecord {
  const record = structuredClone(liveCase(tag, "healthy"));
  if (!record.call) throw new Error("a seed case without a call");
  record.call.tool = tool;
  record.call.operationKey = operationKey;
  delete record.call.outcome;
  return record;
}

type ChainView = { state: string; reasons: string[] };

async function settled(chainId: string, from = "effect_unknown"): Promise<ChainView> {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
    const chain = (await (await agent.get(`/api/v1/chains/${encodeURIComponent(chainId)}`)).json()) as {
      chain: ChainView;
    };
    if (chain.chain.state !== from) return chain.chain;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${chainId} was not settled`);
}

const runsOf = async (chainId: string) =>
  (await (await agent.get(`/api/v1/chains/${encodeURIComponent(chainId)}/checks`)).json()).runs;

describe("the checks config", () => {
  it("refuses bad input at its path and a token written into it, saving nothing", async () => {
    const bad = await put({
      version: 1,
      checks: [{ name: "x", match: {}, http: { url: "https://{labels.h}/" } }],
    });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({
      error: {
        code: "invalid_checks_config",
        issues: [
          { path: "$.checks[0].http.url", message: "placeholders may fill the path and query, not the host" },
        ],
      },
    });
    const token = await put({
      version: 1,
      checks: [{ name: "x", match: {}, http: { url: `${base}/r/{operationKey}?key=ghp_${"a".repeat(36)}` } }],
    });
    expect(token.status).toBe(422);
    expect(await token.json()).toMatchObject({
      error: { code: "secret_detected", issues: [{ path: "$.checks[0].http.url" }] },
    });
    expect(await (await agent.get("/api/v1/checks/config")).json()).toMatchObject({ version: "none" });
  });

  it("is saved by an admin and read back as saved", async () => {
    const saved = await put(config());
    expect(saved.status).toBe(200);
    const read = await (await agent.get("/api/v1/checks/config")).json();
    expect(read.version).toMatch(/^\d+$/);
    expect(read.config.checks.map((check: { name: string }) => check.name)).toEqual(["reports", "payments"]);
  });

  it("coverage names the check that reads each tool's destination", async () => {
    await agent.post([unknownEffect("check-coverage", "create_report", "op:coverage")]);
    // Coverage reads the rollups, which fold what was written within a second.
    let row: { checks: string[] } | undefined;
    for (const deadline = Date.now() + 10_000; !row && Date.now() < deadline; ) {
      const coverage = await (await agent.get("/api/v1/coverage")).json();
      row = coverage.rows.find((r: { tool: string }) => r.tool === "create_report");
      if (!row) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(row?.checks).toEqual(["reports"]);
  });
});

describe("the background job", () => {
  it("an HTTP 200 settles a timed-out write as committed (check:reports); the guard then answers already_committed", async () => {
    const record = unknownEffect("check-committed", "create_report", "op:committed");
    expect((await agent.post([record])).status).toBe(200);
    // The check read the effect and the deliverable: committed and published is verified, not merely unverified.
    const chain = await settled(record.chainId);
    expect([chain.state, chain.reasons[0]]).toEqual(["healthy", "outcome.verified"]);
    expect(await runsOf(record.chainId)).toEqual([
      expect.objectContaining({
        check: "reports",
        trigger: "effect_unknown",
        effect: "committed",
        outcome: "pass",
        receipt: "HTTP 200",
        reconciled: true,
      }),
    ]);
    const operation = await (await agent.get("/api/v1/operations/op%3Acommitted")).json();
    expect(operation.status).toBe("committed");
    const guard = await fetch(`${app.baseUrl}/api/v1/operations/op%3Acommitted/attempts`, {
      method: "POST",
      headers: { authorization: `Bearer ${agentKey}`, "content-type": "application/json" },
      body: JSON.stringify({ tool: "create_report", holder: "retry", leaseMs: 1000 }),
    });
    expect(guard.status).toBe(200);
    expect(await guard.json()).toMatchObject({ decision: "already_committed", status: "committed" });
  });

  it("no row settles a write as absent (check:payments): retrySafe, and the guard lets the retry proceed", async () => {
    const record = unknownEffect("check-absent", "charge_card", "op:unpaid");
    expect((await agent.post([record])).status).toBe(200);
    expect((await settled(record.chainId)).state).toBe("tool_failed");
    expect((await runsOf(record.chainId))[0]).toMatchObject({
      check: "payments",
      effect: "absent",
      receipt: "0 rows",
    });
    const guard = await fetch(`${app.baseUrl}/api/v1/operations/op%3Aunpaid/attempts`, {
      method: "POST",
      headers: { authorization: `Bearer ${agentKey}`, "content-type": "application/json" },
      body: JSON.stringify({ tool: "charge_card", holder: "retry", leaseMs: 1000 }),
    });
    expect(guard.status).toBe(201);
    expect(await guard.json()).toMatchObject({ decision: "proceed", status: "absent" });
  });
});

describe("the background job on unverified calls (checks that assert the outcome)", () => {
  it("a published report verifies the call: healthy, the outcome recorded as http_status by check:reports", async () => {
    const record = unverifiedCall("verify-pass", "create_report", "op:verified");
    expect((await agent.post([record])).status).toBe(200);
    expect(await settled(record.chainId, "unverified")).toMatchObject({
      state: "healthy",
      reasons: ["outcome.verified"],
    });
    expect(await runsOf(record.chainId)).toEqual([
      expect.objectContaining({ check: "reports", trigger: "unverified", outcome: "pass", reconciled: true }),
    ]);
    const triage = await ui.json<{ operatorEffects: { actor: string; outcome: unknown }[] }>(
      `/api/v1/chains/${encodeURIComponent(record.chainId)}/triage`,
    );
    expect(triage.operatorEffects).toEqual([
      expect.objectContaining({
        actor: "check:reports",
        outcome: { verdict: "pass", verifier: "http_status", receipt: "check:reports HTTP 200" },
      }),
    ]);
    // A later snapshot of the call without an outcome of its own keeps the verdict the check recorded.
    const later = { ...structuredClone(record), recordId: `${record.recordId}:later` };
    later.observedAt = new Date(Date.parse(record.observedAt) + 1_000).toISOString();
    expect((await agent.post([later])).status).toBe(200);
    const chain = await (await agent.get(`/api/v1/chains/${encodeURIComponent(record.chainId)}`)).json();
    expect(chain.chain.state).toBe("healthy");
    const audit = await ui.json<{ events: { action: string; actor: string }[] }>(
      `/api/v1/audit?targetType=chain&targetId=${encodeURIComponent(record.chainId)}`,
    );
    expect(audit.events).toEqual([
      expect.objectContaining({ action: "chain.verify", actor: "check:reports" }),
    ]);
  });

  it("a draft where a published report was due is a false success (outcome.verifier_failed)", async () => {
    const record = unverifiedCall("verify-fail", "create_report", "op:draft");
    expect((await agent.post([record])).status).toBe(200);
    expect(await settled(record.chainId, "unverified")).toMatchObject({
      state: "false_success",
      reasons: ["outcome.verifier_failed"],
    });
  });

  it("no report at all after a successful call is a false success (effect.absent)", async () => {
    const record = unverifiedCall("verify-absent", "create_report", "op:never-written");
    expect((await agent.post([record])).status).toBe(200);
    expect(await settled(record.chainId, "unverified")).toMatchObject({
      state: "false_success",
      reasons: ["effect.absent"],
    });
  });

  it("a check that asserts no outcome leaves an unverified call alone: never run, nothing recorded", async () => {
    const skipped = unverifiedCall("verify-skip", "charge_card", "op:paid");
    const witness = unverifiedCall("verify-witness", "create_report", "op:verified");
    expect((await agent.post([skipped, witness])).status).toBe(200);
    // The job lists unverified calls in write order: once the witness is verified, the skipped one was passed over.
    await settled(witness.chainId, "unverified");
    const chain = await (await agent.get(`/api/v1/chains/${encodeURIComponent(skipped.chainId)}`)).json();
    expect(chain.chain.state).toBe("unverified");
    const { rows } = await (async () => {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        return await client.query("select count(*)::int as n from check_runs where chain_id = $1", [
          skipped.chainId,
        ]);
      } finally {
        await client.end();
      }
    })();
    expect(rows[0].n).toBe(0);
  });
});

describe("/metrics", () => {
  it("counts the check runs and the guard's answers", async () => {
    const text = await (await agent.get("/metrics")).text();
    expect(text).toMatch(
      /receipt_check_runs_total\{trigger="effect_unknown",effect="committed",reconciled="true"\} [1-9]/,
    );
    expect(text).toMatch(
      /receipt_check_runs_total\{trigger="effect_unknown",effect="absent",reconciled="true"\} [1-9]/,
    );
    expect(text).toMatch(/receipt_guard_decisions_total\{decision="already_committed"\} [1-9]/);
    expect(text).toMatch(/receipt_guard_decisions_total\{decision="proceed"\} [1-9]/);
  });
});

describe("check destination now", () => {
  it("runs on demand for a responder; a chain no check matches is 422 no_matching_check; a viewer gets 403", async () => {
    const record = unknownEffect("check-none", "send_email", "op:mail");
    expect((await agent.post([record])).status).toBe(200);
    const path = `/api/v1/chains/${encodeURIComponent(record.chainId)}/checks`;
    const none = await ui.post(path, {});
    expect(none.status).toBe(422);
    expect((await none.json()).error.code).toBe("no_matching_check");
    expect((await viewer.post(path, {})).status).toBe(403);
    expect(await runsOf(record.chainId)).toEqual([]);
  });
});

describe("npm run checks (config as code)", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "receipt-checks-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const at = path.join(dir, name);
    writeFileSync(at, text);
    return at;
  };
  const checks = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", "scripts/checks.ts", ...args],
        {
          cwd: path.resolve(import.meta.dirname, "../.."),
          env: { ...process.env, RECEIPT_URL: app.baseUrl, RECEIPT_KEY: adminKey },
        },
        (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
      );
    });

  it("check names each problem with its line; diff shows a change (exit 1); apply saves it; diff is then clean", async () => {
    const bad = file(
      "bad.yaml",
      "version: 1\nchecks:\n  - name: Bad Name\n    match: {}\n    http: { url: https://x.example/ }\n",
    );
    const checked = await checks(["check", bad]);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain(`${bad}:3:11: $.checks[0].name: lowercase letters`);

    const next = {
      ...config(),
      checks: [
        ...config().checks,
        { name: "mail", match: { tool: "send_email" }, http: { url: `${base}/mail/{operationKey}` } },
      ],
    };
    const good = file("checks.json", JSON.stringify(next, null, 2));
    const diffed = await checks(["diff", good]);
    expect(diffed.code).toBe(1);
    expect(diffed.stdout).toContain("+  - name: mail");
    const applied = await checks(["apply", good, "--comment", "mail check"]);
    expect(applied).toMatchObject({ code: 0 });
    expect(applied.stdout).toMatch(/^applied: version \d+ \(was \d+\)/);
    expect((await checks(["diff", good])).code).toBe(0);
    const tested = await checks(["test", good, "--tool", "send_email", "--operation-key", "op/9"]);
    expect(tested.stdout).toBe(`mail: GET ${base}/mail/op%2F9\n`);
  });
});
