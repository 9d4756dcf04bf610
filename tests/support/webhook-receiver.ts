import { type Received, startScriptedReceiver } from "./scripted-receiver";

export type WebhookReceiver = {
  url: (path: string) => string;
  /** Everything received so far, optionally only on one path. */
  received: (path?: string) => Received[];
  /** Status codes to answer on `path`, one per request, before falling back to 200. */
  answer: (path: string, ...statuses: number[]) => void;
  /** Waits until `predicate` holds for the received list. */
  waitFor: (
    predicate: (all: Received[]) => boolean,
    timeoutMs?: number,
    what?: string,
  ) => Promise<Received[]>;
  stop: () => Promise<void>;
};

/** A real HTTP receiver on 127.0.0.1 (webhook, Slack and PagerDuty stand-in) for the routing tests: status codes only. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver = await startScriptedReceiver();
  return {
    url: receiver.url,
    received: receiver.received,
    answer: (path, ...statuses) => receiver.script(path, ...statuses.map((status) => ({ status }))),
    waitFor: receiver.waitFor,
    stop: receiver.stop,
  };
}
