import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DO_NOT_RETRY, RETRY_ALLOWED, RETRY_UNSAFE } from "@/lib/routing/payload";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import {
  alertsReceived,
  FAST_ROUTING_ENV,
  hookedDefaults,
  hookPath,
  routingApi,
  seedRecord,
} from "@/tests/support/routing-helpers";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// Issue 6's default table, row by row, end to end: records in over HTTP, classified, routed by the shipped default
// tree (with a webhook on each channel and short timings), delivered to a real receiver on 127.0.0.1.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let ingest: ReturnType<typeof apiClient>;
let sentAt = 0;

const channelsOf = (chainId: string) =>
  alertsReceived(receiver.received())
    .filter((r) => r.alert.chainId === chainId)
    .map((r) => r.path)
    .sort();
const alertOf = (chainId: string, path: string) => {
  const found = alertsReceived(receiver.received()).find(
    (r) => r.alert.chainId === chainId && r.path === path,
  );
  if (!found) throw new Error(`${chainId} did not reach ${path}`);
  return found.alert;
};
const hook = {
  credentials: hookPath("credentials-owner"),
  integration: hookPath("integration-owner"),
  client: hookPath("client-implementer"),
  tool: hookPath("tool-owner"),
  reconciliation: hookPath("reconciliation"),
  outcome: hookPath("outcome-incident"),
};

const records = {
  needsAuth: seedRecord("needs_auth", "auth"),
  urlElicitation: seedRecord("tool_failed", "elicit", (r) => {
    if (r.call)
      r.call.response = {
        at: r.call.startedAt,
        kind: "error",
        error: { code: -32042, class: "url_elicitation" },
      };
  }),
  incompatible: seedRecord("incompatible_session", "version"),
  protocolError: seedRecord("protocol_error", "params"),
  toolFailedSafe: seedRecord("tool_failed", "read-failed"),
  toolFailedUnsafe: seedRecord("tool_failed", "write-failed", (r) => {
    if (r.call) r.call.sideEffect = "write";
  }),
  effectUnknown: seedRecord("effect_unknown", "timeout"),
  shadowedEffect: seedRecord("effect_unknown", "timeout-behind-auth", (r) => {
    r.session.auth = { challenge: { status: 401, at: r.observedAt, error: "invalid_token" } };
  }),
  falseSuccess: seedRecord("false_success", "draft"),
  pending: seedRecord("false_success", "pending", (r) => {
    if (r.call) r.call.effect = { checkedAt: r.observedAt, status: "committed" };
  }),
  noReceipt: seedRecord("false_success", "no-receipt", (r) => {
    if (r.call) {
      r.call.effect = { checkedAt: r.observedAt, status: "committed" };
      delete r.call.expectedVerifier;
    }
  }),
  working: seedRecord("working", "task"),
  healthy: seedRecord("healthy", "export"),
};

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  app = await startApp(db.url, FAST_ROUTING_ENV);
  ingest = apiClient(app.baseUrl, await createTestKey(db.url, "agent"));
  await routingApi(app.baseUrl, await adminCookie(app.baseUrl)).saveConfig(hookedDefaults(receiver));
  sentAt = Date.now();
  const response = await ingest.post(Object.values(records));
  expect(response.status).toBe(200);
  // Everything immediate has arrived well before the 1.5 s bounded wait of outcome.pending ends.
  await receiver.waitFor((all) => all.length >= 12, 10_000, "the immediate notifications");
  await receiver.waitFor(
    () => channelsOf(records.pending.chainId).length > 0,
    10_000,
    "the outcome.pending notification",
  );
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

describe("the default routing table, delivered", () => {
  it("needs_auth → credentials owner, with the challenged resource and scope, never a token", () => {
    expect(channelsOf(records.needsAuth.chainId)).toEqual([hook.credentials]);
    const alert = alertOf(records.needsAuth.chainId, hook.credentials);
    expect(alert).toMatchObject({
      state: "needs_auth",
      severity: "high",
      details: { resource: "https://reports.example.com/mcp", requiredScope: "reports:write" },
    });
    const raw = receiver
      .received(hook.credentials)
      .map((r) => r.body)
      .join("\n");
    expect(raw).not.toMatch(/Bearer|eyJ|authorization/i);
  });

  it("auth.url_elicitation_required → a low-severity notice to the credentials owner", () => {
    expect(channelsOf(records.urlElicitation.chainId)).toEqual([hook.credentials]);
    expect(alertOf(records.urlElicitation.chainId, hook.credentials)).toMatchObject({
      reasons: ["auth.url_elicitation_required"],
      severity: "low",
    });
  });

  it("incompatible_session → integration owner, with client, server and negotiated versions and capabilities", () => {
    expect(channelsOf(records.incompatible.chainId)).toEqual([hook.integration]);
    expect(alertOf(records.incompatible.chainId, hook.integration).details).toMatchObject({
      clientVersion: "0.1.0",
      serverVersion: "0.4.2",
      requestedVersion: "2025-11-25",
      negotiatedVersion: "2024-11-05",
      capabilities: { client: ["elicitation"], server: ["tools", "tools.listChanged", "logging"] },
    });
  });

  it("protocol_error → client implementer, with method, request id and sanitized error class", () => {
    expect(channelsOf(records.protocolError.chainId)).toEqual([hook.client]);
    expect(alertOf(records.protocolError.chainId, hook.client).details).toEqual({
      method: "tools/call",
      requestId: "req-58",
      errorCode: -32602,
      errorClass: "invalid_params",
    });
  });

  it('tool_failed → tool owner, carrying retrySafe; "retry allowed" only when known reversible', () => {
    expect(channelsOf(records.toolFailedSafe.chainId)).toEqual([hook.tool]);
    expect(alertOf(records.toolFailedSafe.chainId, hook.tool)).toMatchObject({
      retrySafe: true,
      guidance: RETRY_ALLOWED,
      details: { retrySafe: true },
    });
    expect(alertOf(records.toolFailedUnsafe.chainId, hook.tool)).toMatchObject({
      retrySafe: false,
      guidance: RETRY_UNSAFE,
    });
  });

  it("effect_unknown → reconciliation + integration owner, critical, do not retry, reconcile link", () => {
    expect(channelsOf(records.effectUnknown.chainId)).toEqual([hook.integration, hook.reconciliation]);
    for (const path of [hook.reconciliation, hook.integration]) {
      expect(alertOf(records.effectUnknown.chainId, path)).toMatchObject({
        severity: "critical",
        guidance: DO_NOT_RETRY,
        links: {
          chain: "https://receipt.example.com/chains/chain%3Atimeout",
          reconcile: "https://receipt.example.com/queues/effect-unknown?chain=chain%3Atimeout",
        },
      });
    }
  });

  it("a shadowed effect_unknown behind needs_auth routes like effect_unknown, never inhibited", () => {
    const chainId = records.shadowedEffect.chainId;
    expect(channelsOf(chainId)).toEqual([hook.credentials, hook.integration, hook.reconciliation]);
    expect(alertOf(chainId, hook.reconciliation)).toMatchObject({
      state: "effect_unknown",
      shadowedBy: "needs_auth",
    });
  });

  it("false_success → outcome incident, critical, linking the chain and the failing check", () => {
    expect(channelsOf(records.falseSuccess.chainId)).toEqual([hook.outcome]);
    expect(alertOf(records.falseSuccess.chainId, hook.outcome)).toMatchObject({
      severity: "critical",
      links: { chain: "https://receipt.example.com/chains/chain%3Adraft" },
      details: { verifier: "db_row", effectStatus: "absent" },
    });
  });

  it("unverified: a declared verifier still outcome.pending after the wait → outcome incident; the rest quiet", () => {
    expect(channelsOf(records.pending.chainId)).toEqual([hook.outcome]);
    expect(alertOf(records.pending.chainId, hook.outcome)).toMatchObject({
      state: "unverified",
      reasons: ["outcome.pending"],
      details: { verifier: "db_row" },
    });
    // Not before the route's 1.5 s bounded wait, which started when the record was stored.
    const first = receiver.received(hook.outcome).find((r) => r.body.includes(records.pending.chainId));
    expect((first?.at ?? 0) - sentAt).toBeGreaterThanOrEqual(1500);
    expect(channelsOf(records.noReceipt.chainId)).toEqual([]);
  });

  it("working and healthy are quiet", () => {
    expect(channelsOf(records.working.chainId)).toEqual([]);
    expect(channelsOf(records.healthy.chainId)).toEqual([]);
  });

  it("every webhook is signed and every payload carries a severity", () => {
    for (const r of receiver.received()) {
      expect(r.headers["x-receipt-signature"]).toMatch(/^v1=[0-9a-f]{64}$/);
      expect((r.json as { severity?: string }).severity).toMatch(/^(critical|high|warning|low)$/);
    }
  });
});
