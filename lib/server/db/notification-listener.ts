import pg from "pg";
import { isDatabaseUnavailable } from "./availability";

// One dedicated connection (not from the pool: a pooled connection is handed to other work and its LISTEN would be
// lost or leak into it) that LISTENs on some channels. When the database drops it, it reconnects with a growing
// delay; the loss and the recovery are logged once each, not every retry. Notifications sent while it was away are
// lost: `onConnected` runs on every (re)connection, and `onLost` as soon as it is gone, for its owner to make up.

export type NotificationListener = { stop: () => Promise<void> };

export type NotificationListenerOptions = {
  connectionString: string;
  /** Its pg_stat_activity.application_name. */
  name: string;
  /** What it is, in the log lines: "wake-up listener". */
  what: string;
  /** What goes on while it is away, in the log line of its loss: "ticks still run". */
  meanwhile: string;
  channels: readonly string[];
  onNotification: (channel: string, payload: string | undefined) => void;
  /** Called once LISTEN is in place, on every (re)connection. */
  onConnected: () => void;
  /** Called when the connection is lost or could not be made. */
  onLost?: () => void;
  firstRetryMs?: number;
  maxRetryMs: number;
};

export function startNotificationListener(options: NotificationListenerOptions): NotificationListener {
  const channels = new Set(options.channels);
  const firstRetryMs = options.firstRetryMs ?? 250;
  let client: pg.Client | undefined;
  let stopped = false;
  let retryMs = firstRetryMs;
  let retryTimer: NodeJS.Timeout | undefined;
  let lostSince: number | undefined;

  const scheduleReconnect = (error: unknown) => {
    if (stopped || retryTimer) return;
    if (lostSince === undefined) {
      lostSince = Date.now();
      const why = isDatabaseUnavailable(error) ? "the database is unavailable" : errorText(error);
      console.error(`receipt: ${options.what} lost its connection (${why}); retrying, ${options.meanwhile}`);
    }
    options.onLost?.();
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, options.maxRetryMs);
  };

  const connect = async () => {
    const current = new pg.Client({
      connectionString: options.connectionString,
      application_name: options.name,
    });
    client = current;
    // Without these handlers a dropped socket is an unhandled 'error' event, which ends the process.
    current.on("error", (error) => {
      void current.end().catch(() => {});
      scheduleReconnect(error);
    });
    current.on("end", () => scheduleReconnect(new Error("Connection terminated")));
    current.on("notification", (message) => {
      if (channels.has(message.channel)) options.onNotification(message.channel, message.payload);
    });
    try {
      await current.connect();
      await current.query([...channels].map((channel) => `listen ${pg.escapeIdentifier(channel)}`).join(";"));
    } catch (error) {
      current.removeAllListeners("end");
      void current.end().catch(() => {});
      scheduleReconnect(error);
      return;
    }
    if (stopped) {
      await current.end().catch(() => {});
      return;
    }
    if (lostSince !== undefined) {
      console.error(
        `receipt: ${options.what} reconnected after ${Math.round((Date.now() - lostSince) / 1000)} s`,
      );
      lostSince = undefined;
    }
    retryMs = firstRetryMs;
    options.onConnected();
  };

  void connect();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(retryTimer);
      client?.removeAllListeners("end");
      await client?.end().catch(() => {});
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
