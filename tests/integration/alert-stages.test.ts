import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALERT_STAGES } from "@/lib/server/routing/alert-stages";
import { apiClient, type RunningApp } from "@/tests/support/app-server";
import { alertsReceived, FAST_ROUTING_ENV, seedRecord } from "@/tests/support/routing-helpers";
import { startTeamWebhookApp, type TeamWebhookApp } from "@/tests/support/team-webhook-app";
import type { WebhookReceiver } from "@/tests/support/webhook-receiver";

// receipt_alert_stage_seconds on the production build: an alert's way from the ingesting commit to its receiver is
// observed stage by stage, each stage once per alert, delivery or run that did something.
const STAGES = ALERT_STAGES;
type Stage = (typeof STAGES)[number];

// Routed in the ingesting transaction (the default), or through the outbox and the routing job.
describe.each([
  {
    routeAtCommit: "1",
    perAlert: ["delivery_wait", "post", "record"],
    perRun: ["commit_route", "claim"],
    none: ["outbox_wait", "route", "flush"],
  },
  {
    routeAtCommit: "0",
    perAlert: ["outbox_wait", "delivery_wait", "post", "record"],
    perRun: ["route", "flush", "claim"],
    none: ["commit_route"],
  },
] satisfies { routeAtCommit: string; perAlert: Stage[]; perRun: Stage[]; none: Stage[] }[])(
  "receipt_alert_stage_seconds, RECEIPT_ROUTE_AT_COMMIT=$routeAtCommit",
  ({ routeAtCommit, perAlert, perRun, none }) => {
    let pipeline: TeamWebhookApp;
    let app: RunningApp;
    let receiver: WebhookReceiver;
    let ingestKey: string;
    let readKey: string;

    beforeAll(async () => {
      pipeline = await startTeamWebhookApp({
        ...FAST_ROUTING_ENV,
        RECEIPT_ALERT_TICK_MS: "30000",
        RECEIPT_ROUTE_AT_COMMIT: routeAtCommit,
      });
      ({ app, receiver, ingestKey, readKey } = pipeline);
    });
    afterAll(async () => {
      await pipeline?.stop();
    });

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
      ) as Record<Stage, { count: number; sum: number }>;
    }

    it("three alerts, each its own group and delivery: every stage of the way observed, the per-alert ones three times", async () => {
      const before = await stageTotals();
      const records = ["a", "b", "c"].map((tag) =>
        seedRecord("tool_failed", `stages-${routeAtCommit}-${tag}`),
      );
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
      const grew = (stage: Stage) => after[stage].count - before[stage].count;
      // Per alert: one first attempt, one POST, one recorded attempt (and through the outbox, one event).
      for (const stage of perAlert) expect(grew(stage), stage).toBe(3);
      // Runs: at least one of each, at most one per alert.
      for (const stage of perRun) {
        expect(grew(stage), stage).toBeGreaterThanOrEqual(1);
        expect(grew(stage), stage).toBeLessThanOrEqual(3);
      }
      // The other way's stages are not taken.
      for (const stage of none) expect(grew(stage), stage).toBe(0);
      for (const stage of [...perAlert, ...perRun]) {
        const mean = (after[stage].sum - before[stage].sum) / grew(stage);
        expect(mean, stage).toBeGreaterThan(0);
        expect(mean, stage).toBeLessThan(15);
      }
    });
  },
);
