import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type RunningApp } from "@/tests/support/app-server";
import { alertsReceived, seedRecord } from "@/tests/support/routing-helpers";
import { startTeamWebhookApp, type TeamWebhookApp } from "@/tests/support/team-webhook-app";
import type { WebhookReceiver } from "@/tests/support/webhook-receiver";

// An instance's own commit wakes its jobs directly after the commit; its NOTIFY carries the instance's id, so the
// same wake-up coming back on its LISTEN connection does not run each job a second time. The safety ticks are set
// far longer than the test, so every run counted is a wake-up.
// Both ways to a delivery: routed in the ingesting transaction (the default: no routing run at all), and through the
// outbox (one routing run). Either way the commit that inserts the delivery hands it to this instance's engine, which
// claims it by id: the delivery job does not run at all (its NOTIFY's echo runs it neither).
describe.each([
  { routeAtCommit: "1", routingRuns: 0 },
  { routeAtCommit: "0", routingRuns: 1 },
])("an instance's own wake-ups, RECEIPT_ROUTE_AT_COMMIT=$routeAtCommit", ({ routeAtCommit, routingRuns }) => {
  let pipeline: TeamWebhookApp;
  let app: RunningApp;
  let receiver: WebhookReceiver;
  let ingestKey: string;
  let readKey: string;

  beforeAll(async () => {
    // groupInterval well past the test: the group's next tick does not run routing meanwhile.
    pipeline = await startTeamWebhookApp(
      {
        RECEIPT_ALERT_TICK_MS: "60000",
        RECEIPT_DELIVERY_TICK_MS: "60000",
        RECEIPT_ROUTE_AT_COMMIT: routeAtCommit,
      },
      "1m",
    );
    ({ app, receiver, ingestKey, readKey } = pipeline);
  });
  afterAll(async () => {
    await pipeline?.stop();
  });

  async function jobRuns(): Promise<Record<"routing" | "delivery", number>> {
    const text = await (await apiClient(app.baseUrl, readKey).get("/metrics")).text();
    const runs = (job: string) =>
      Number(new RegExp(`^receipt_job_runs_total\\{job="${job}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
    return { routing: runs("alert-routing"), delivery: runs("delivery") };
  }

  async function alertThrough(id: string) {
    const record = seedRecord("tool_failed", id);
    expect((await apiClient(app.baseUrl, ingestKey).post([record])).status).toBe(200);
    await receiver.waitFor(
      (all) => alertsReceived(all).some((hit) => hit.alert.chainId === record.chainId),
      10_000,
      `the notification of ${id}`,
    );
    // Anything a wake-up's echo would start has started by then.
    await new Promise((resolve) => setTimeout(resolve, 500));
  }

  it(`one record, one notification: routing runs ${routingRuns} times and the delivery job never`, async () => {
    await alertThrough(`wake-once-warm-${routeAtCommit}`);
    const before = await jobRuns();
    await alertThrough(`wake-once-${routeAtCommit}`);
    const after = await jobRuns();
    expect({ routing: after.routing - before.routing, delivery: after.delivery - before.delivery }).toEqual({
      routing: routingRuns,
      delivery: 0,
    });
  });
});
