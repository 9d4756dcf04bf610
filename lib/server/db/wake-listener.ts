import { type NotificationListener, startNotificationListener } from "./notification-listener";
import { isOwnWake, WAKE_CHANNELS, type WakeChannel } from "./wake-notify";

// One LISTEN connection per instance on the wake channels. Ticks go on while it is away, and a reconnect wakes every
// job, since notifications sent meanwhile are lost.

export type WakeListener = NotificationListener;

export type WakeListenerOptions = {
  connectionString: string;
  onWake: (channel: WakeChannel) => void;
  /** Called on every (re)connection: work committed while no one listened is picked up. */
  onConnected: () => void;
  firstRetryMs?: number;
  maxRetryMs: number;
};

/** Its pg_stat_activity.application_name. */
export const LISTENER_NAME = "receipt-wake-listener";

export function startWakeListener(options: WakeListenerOptions): WakeListener {
  return startNotificationListener({
    connectionString: options.connectionString,
    name: LISTENER_NAME,
    what: "wake-up listener",
    meanwhile: "ticks still run",
    channels: Object.values(WAKE_CHANNELS),
    onNotification: (channel, payload) => {
      if (!isOwnWake(payload)) options.onWake(channel as WakeChannel);
    },
    onConnected: options.onConnected,
    ...(options.firstRetryMs !== undefined ? { firstRetryMs: options.firstRetryMs } : {}),
    maxRetryMs: options.maxRetryMs,
  });
}
