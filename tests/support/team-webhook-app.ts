import { createTestKey, type RunningApp, startApp } from "./app-server";
import { adminCookie } from "./dashboard-session";
import { routingApi, teamWebhookRouting } from "./routing-helpers";
import { createTestDatabase } from "./test-database";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

export type TeamWebhookApp = {
  app: RunningApp;
  receiver: WebhookReceiver;
  /** An `ingest` key and a `read` key (for /metrics). */
  ingestKey: string;
  readKey: string;
  stop: () => Promise<void>;
};

/**
 * The production build on a database of its own, routing every alert to one webhook on a receiver of its own
 * (`/hook/team`, teamWebhookRouting): the set-up of the tests that follow one alert from ingestion to its receiver.
 */
export async function startTeamWebhookApp(
  env: Record<string, string>,
  groupInterval?: string,
): Promise<TeamWebhookApp> {
  const db = await createTestDatabase();
  const receiver = await startWebhookReceiver();
  const ingestKey = await createTestKey(db.url, "agent", ["ingest"]);
  const readKey = await createTestKey(db.url, "scraper", ["read"]);
  const app = await startApp(db.url, env);
  await routingApi(app.baseUrl, await adminCookie(app.baseUrl)).saveConfig(
    teamWebhookRouting(receiver.url("/hook/team"), groupInterval),
  );
  return {
    app,
    receiver,
    ingestKey,
    readKey,
    stop: async () => {
      await app.stop();
      await receiver.stop();
      await db.drop();
    },
  };
}
