import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type RunningApp } from "@/tests/support/app-server";
import { alertsReceived, FAST_ROUTING_ENV, seedRecord } from "@/tests/support/routing-helpers";
import { startTeamWebhookApp, type TeamWebhookApp } from "@/tests/support/team-webhook-app";
import type { WebhookReceiver } from "@/tests/support/webhook-receiver";

// receipt_alert_stage_seconds on the production build: an alert's way from the ingesting commit to its receiver is
// observed stage by stage, each stage once per alert, delivery or run that did something.
let pipeline: TeamWebhookApp;
let app: RunningApp;
let receiver: WebhookReceiver;
let ingestKey: string;
let readKey: string;

beforeAll(async () => {
  pipeline = await startTeamWebhookApp({ ...FAST_ROUTING_ENV, RECEIPT_ALERT_TICK_MS: "30000" });
  ({ app, receiver, ingestKey, readKey } = pipeline);
});
afterAll(async () => {
  await pipeline?.stop();
});

const STAGES = ["outbox_wait", "route", "flush", "delivery_wait", "claim", "post", "record"] as const;

/** Each stage's observation count and sum (seconds) in a scrape. */
async function stageTotals() {
  const response = await apiClient(app.baseUrl, readKey).get("/metrics");
  expect(response.status).toBe(200);
  const text = await response.text();
  const value = (field: "count" | "sum", stage: string) =>
    Number(
      new RegExp(`^receipt_alert_stage_seconds_${field}\\{stage="${stage}"\\} (\\S+)$`, "m").exec(
        text,
      )?.[1] ?? 0,
    );
  return Object.fromEntries(
    STAGES.map((stage) => [stage, { count: value("count", stage), sum: value("sum", stage) }]),
  ) as Record<(typeof STAGES)[number], { count: number; sum: number }>;
}

describe("receipt_alert_stage_seconds", () => {
  it("three alerts, each its own group and delivery: every stage observed, the per-alert ones three times", async () => {
    const before = await stageTotals();
    const records = ["a", "b", "c"].map((tag) => seedRecord("tool_failed", `stages-${tag}`));
    const response = await apiClient(app.baseUrl, ingestKey).post(records);
    expect(response.status).toBe(200);
    await receiver.waitFor(
      (all) => records.every((r) => alertsReceived(all).some((hit) => hit.alert.chainId === r.chainId)),
      15_000,
      "the three notifications",
    );
    // The attempt is recorded after the receiver answered: wait for it too.
    let after = await stageTotals();
    for (let tries = 0; after.record.count - before.record.count < 3 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await stageTotals();
    }
    const grew = (stage: (typeof STAGES)[number]) => after[stage].count - before[stage].count;
    // One outbox event, one first attempt, one POST and one recorded attempt per alert.
    for (const stage of ["outbox_wait", "delivery_wait", "post", "record"] as const)
      expect(grew(stage)).toBe(3);
    // Runs: at least one of each, at most one per alert.
    for (const stage of ["route", "flush", "claim"] as const) {
      expect(grew(stage)).toBeGreaterThanOrEqual(1);
      expect(grew(stage)).toBeLessThanOrEqual(3);
    }
    for (const stage of STAGES) {
      const mean = (after[stage].sum - before[stage].sum) / grew(stage);
      expect(mean, stage).toBeGreaterThan(0);
      expect(mean, stage).toBeLessThan(15);
    }
  });
});
