import pg from "pg";
import { isDatabaseUnavailable } from "./availability";
import { WAKE_CHANNELS, type WakeChannel } from "./wake-notify";

// One dedicated connection per instance (not from the pool: a pooled connection is handed to other work and its
// LISTEN would be lost or leak into it) that LISTENs on the wake channels. When the database drops it, it reconnects
// with a growing delay; the loss and the recovery are logged once each, not every retry. Ticks go on meanwhile, and
// a reconnect wakes every job, since notifications sent while it was away are lost.

export type WakeListener = { stop: () => Promise<void> };

export type WakeListenerOptions = {
  connectionString: string;
  onWake: (channel: WakeChannel) => void;
  /** Called on every (re)connection: work committed while no one listened is picked up. */
  onConnected: () => void;
  firstRetryMs?: number;
  maxRetryMs: number;
};

const CHANNELS = new Set<string>(Object.values(WAKE_CHANNELS));
/** Its pg_stat_activity.application_name. */
export const LISTENER_NAME = "receipt-wake-listener";

export function startWakeListener(options: WakeListenerOptions): WakeListener {
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
      console.error(`receipt: wake-up listener lost its connection (${why}); retrying, ticks still run`);
    }
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
      application_name: LISTENER_NAME,
    });
    client = current;
    // Without these handlers a dropped socket is an unhandled 'error' event, which ends the process.
    current.on("error", (error) => {
      void current.end().catch(() => {});
      scheduleReconnect(error);
    });
    current.on("end", () => scheduleReconnect(new Error("Connection terminated")));
    current.on("notification", (message) => {
      if (CHANNELS.has(message.channel)) options.onWake(message.channel as WakeChannel);
    });
    try {
      await current.connect();
      await current.query([...CHANNELS].map((channel) => `listen ${pg.escapeIdentifier(channel)}`).join(";"));
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
        `receipt: wake-up listener reconnected after ${Math.round((Date.now() - lostSince) / 1000)} s`,
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
