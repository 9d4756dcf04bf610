// Generic webhook payload: per-state evidence from the issue table, retry wording, redaction.
import { describe, expect, it } from "vitest";
import { alertsForChain } from "@/lib/routing/alerts";
import {
  type AlertContext,
  DO_NOT_RETRY,
  linksFor,
  type Notification,
  RETRY_ALLOWED,
} from "@/lib/routing/payload";
import { buildWebhookBody, type WebhookAlert } from "@/lib/routing/payload-webhook";
import type { ClassifiedChain, Layer, Severity, State } from "@/lib/routing/types";

const links = linksFor("https://receipt.example.com/");
const STARTS = "2026-11-30T10:00:00.000Z";

function notification(
  state: State,
  layer: Layer,
  reason: string,
  opts: {
    chain?: Partial<ClassifiedChain>;
    context?: AlertContext;
    status?: "firing" | "resolved";
    severity?: Severity;
  } = {},
): Notification {
  const [alert] = alertsForChain({
    chainId: "c1",
    sessionId: "s1",
    state,
    layer,
    reasons: [reason],
    server: "fs",
    tool: "write_file",
    labels: { team: "a" },
    ...opts.chain,
  });
  if (!alert) throw new Error("expected an alert");
  return {
    groupKey: 'default/ops:{server="fs"}',
    receiver: "ops",
    alerts: [
      {
        alert,
        status: opts.status ?? "firing",
        startsAt: STARTS,
        ...(opts.status === "resolved" ? { endsAt: "2026-11-30T11:00:00.000Z" } : {}),
        severity: opts.severity ?? alert.severity,
        context: opts.context,
      },
    ],
  };
}
const first = (n: Notification): WebhookAlert => {
  const a = buildWebhookBody(n, links).alerts[0];
  if (!a) throw new Error("expected an alert");
  return a;
};

describe("webhook body per state (issue 6 table)", () => {
  type Case = {
    name: string;
    n: Notification;
    details: Record<string, unknown>;
    guidance?: string | RegExp;
    reconcile: boolean;
  };
  const cases: Case[] = [
    {
      name: "needs_auth: challenged resource and required scope",
      n: notification("needs_auth", "session", "auth.challenge_unresolved", {
        context: {
          resource: "https://mcp.example.com/mcp",
          requiredScope: "files:write",
          authError: "insufficient_scope",
        },
      }),
      details: {
        resource: "https://mcp.example.com/mcp",
        requiredScope: "files:write",
        authError: "insufficient_scope",
      },
      guidance: /re-authorize/,
      reconcile: false,
    },
    {
      name: "incompatible_session: versions and capabilities",
      n: notification("incompatible_session", "session", "session.capability_missing", {
        context: {
          clientVersion: "1.2.0",
          serverVersion: "0.9.1",
          negotiatedVersion: "2025-11-25",
          capabilities: { client: ["roots"], server: ["tools"], missing: ["tasks"] },
        },
      }),
      details: {
        clientVersion: "1.2.0",
        serverVersion: "0.9.1",
        negotiatedVersion: "2025-11-25",
        capabilities: { client: ["roots"], server: ["tools"], missing: ["tasks"] },
      },
      reconcile: false,
    },
    {
      name: "protocol_error: method, request id, sanitized error class",
      n: notification("protocol_error", "request", "request.caller_error", {
        context: { method: "tools/call", requestId: 7, errorCode: -32602, errorClass: "InvalidParams" },
      }),
      details: { method: "tools/call", requestId: 7, errorCode: -32602, errorClass: "InvalidParams" },
      reconcile: false,
    },
    {
      name: "tool_failed with retrySafe: retry allowed",
      n: notification("tool_failed", "request", "request.unfinished_read_only", {
        chain: { retrySafe: true },
      }),
      details: { retrySafe: true },
      guidance: RETRY_ALLOWED,
      reconcile: false,
    },
    {
      name: "effect_unknown: do not retry automatically + reconcile link",
      n: notification("effect_unknown", "effect", "effect.unreconciled", {
        chain: { retrySafe: false },
        context: { operationKey: "op-1" },
      }),
      details: { operationKey: "op-1", retrySafe: false },
      guidance: DO_NOT_RETRY,
      reconcile: true,
    },
    {
      name: "false_success: the failing verifier",
      n: notification("false_success", "outcome", "outcome.verifier_failed", {
        context: { verifier: "file_hash", verdict: "fail" },
      }),
      details: { verifier: "file_hash", verdict: "fail" },
      reconcile: false,
    },
  ];
  it.each(cases)("$name", ({ n, details, guidance, reconcile }) => {
    const a = first(n);
    expect(a.details).toEqual(details);
    if (typeof guidance === "string") expect(a.guidance).toBe(guidance);
    else if (guidance) expect(a.guidance).toMatch(guidance);
    expect(a.links.chain).toBe("https://receipt.example.com/chains/c1");
    expect(a.links.reconcile).toBe(
      reconcile ? "https://receipt.example.com/queues/effect-unknown?chain=c1" : undefined,
    );
  });

  it('says "retry allowed" only when retrySafe is true', () => {
    for (const retrySafe of [false, undefined]) {
      const body = JSON.stringify(
        buildWebhookBody(
          notification("tool_failed", "request", "request.tool_error", { chain: { retrySafe } }),
          links,
        ),
      );
      expect(body.toLowerCase()).not.toContain("retry allowed");
    }
  });

  it("carries the common fields and critical severity for effect_unknown", () => {
    const body = buildWebhookBody(
      notification("effect_unknown", "effect", "effect.unreconciled", { chain: { retrySafe: false } }),
      links,
    );
    expect(body).toMatchObject({
      version: "receipt.alerts.v1",
      status: "firing",
      receiver: "ops",
      severity: "critical",
    });
    expect(body.alerts[0]).toMatchObject({
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
      state: "effect_unknown",
      severity: "critical",
      reasons: ["effect.unreconciled"],
      chainId: "c1",
      sessionId: "s1",
      server: "fs",
      tool: "write_file",
      retrySafe: false,
      startsAt: STARTS,
      labels: { team: "a" },
    });
  });

  it("a resolved alert has endsAt and the group status is resolved", () => {
    const body = buildWebhookBody(
      notification("tool_failed", "request", "request.tool_error", { status: "resolved" }),
      links,
    );
    expect(body.status).toBe("resolved");
    expect(body.alerts[0]?.endsAt).toBe("2026-11-30T11:00:00.000Z");
  });

  it("never carries fields the context type does not name (no tokens)", () => {
    const leaky = {
      resource: "https://mcp.example.com/mcp",
      token: "Bearer abc.def",
      authorization: "secret",
    } as AlertContext;
    const body = JSON.stringify(
      buildWebhookBody(
        notification("needs_auth", "session", "auth.challenge_unresolved", { context: leaky }),
        links,
      ),
    );
    expect(body).not.toMatch(/token|authorization|Bearer|secret/i);
  });
});
