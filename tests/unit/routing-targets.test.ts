// Target-specific bodies (Slack, PagerDuty) and the outbound requests built per channel target.
import { describe, expect, it } from "vitest";
import { alertsForChain } from "@/lib/routing/alerts";
import type { TChannel } from "@/lib/routing/config";
import { type AlertContext, linksFor, type Notification } from "@/lib/routing/payload";
import { buildPagerDutyEvents } from "@/lib/routing/payload-pagerduty";
import { buildSlackMessage } from "@/lib/routing/payload-slack";
import { buildRequests, redactRequest } from "@/lib/routing/requests";
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
describe("Slack and PagerDuty bodies", () => {
  it("Slack: text + blocks, escaped, with the reconcile link for effect_unknown", () => {
    const msg = buildSlackMessage(
      notification("effect_unknown", "effect", "effect.unreconciled", { chain: { server: "<fs>" } }),
      links,
    );
    expect(msg.text).toMatch(/^\[FIRING:1\] effect_unknown \(critical\)/);
    const text = JSON.stringify(msg.blocks);
    expect(text).toContain("&lt;fs&gt;");
    expect(text).toContain("/queues/effect-unknown?chain=c1");
    expect(text).toContain("do not retry automatically");
  });

  it("PagerDuty: trigger with dedup_key = fingerprint and mapped severity; resolve is minimal", () => {
    const firing = notification("needs_auth", "session", "auth.challenge_unresolved");
    const [trigger] = buildPagerDutyEvents(firing, "rk", links);
    expect(trigger).toMatchObject({
      routing_key: "rk",
      event_action: "trigger",
      dedup_key: firing.alerts[0]?.alert.fingerprint,
      payload: { severity: "error", source: "fs", class: "needs_auth", component: "write_file", group: "fs" },
    });
    const [resolve] = buildPagerDutyEvents(
      notification("needs_auth", "session", "auth.challenge_unresolved", { status: "resolved" }),
      "rk",
      links,
    );
    expect(resolve).toEqual({
      routing_key: "rk",
      event_action: "resolve",
      dedup_key: firing.alerts[0]?.alert.fingerprint,
    });
  });

  it.each([
    ["critical", "critical"],
    ["high", "error"],
    ["warning", "warning"],
    ["low", "info"],
  ] as const)("PagerDuty severity %s → %s", (severity, pd) => {
    const [event] = buildPagerDutyEvents(
      notification("tool_failed", "request", "request.tool_error", { severity }),
      "rk",
      links,
    );
    expect(event?.event_action === "trigger" && event.payload.severity).toBe(pd);
  });
});

describe("buildRequests", () => {
  const channel: TChannel = {
    name: "ops",
    ownerRole: "ops",
    targets: [
      { type: "webhook", url: "http://127.0.0.1:9/hook", secret: "0123456789abcdef" },
      { type: "slack", url: "https://hooks.slack.com/services/T/B/SECRET" },
      { type: "pagerduty", routingKey: "rk", url: "http://127.0.0.1:9/pd" },
    ],
  };
  it("one request per webhook/slack target, one per alert for PagerDuty", () => {
    const requests = buildRequests(
      channel,
      notification("tool_failed", "request", "request.tool_error"),
      links,
    );
    expect(requests.map((r) => [r.targetType, r.url, r.signingSecret !== undefined])).toEqual([
      ["webhook", "http://127.0.0.1:9/hook", true],
      ["slack", "https://hooks.slack.com/services/T/B/SECRET", false],
      ["pagerduty", "http://127.0.0.1:9/pd", false],
    ]);
    for (const r of requests) expect(() => JSON.parse(r.body)).not.toThrow();
  });
  it("redactRequest drops the secret and the Slack URL's secret path", () => {
    const [hook, slack] = buildRequests(
      channel,
      notification("tool_failed", "request", "request.tool_error"),
      links,
    ).map(redactRequest);
    expect(JSON.stringify(hook)).not.toContain("0123456789abcdef");
    expect(JSON.stringify(slack)).not.toContain("SECRET");
  });
});
