import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a receiver got: the exact body bytes (signatures are over them) and the headers. */
export type Received = {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: unknown;
  at: number;
};

export type WebhookReceiver = {
  url: (path: string) => string;
  /** Everything received so far, optionally only on one path. */
  received: (path?: string) => Received[];
  /** Status codes to answer on `path`, one per request, before falling back to 200. */
  answer: (path: string, ...statuses: number[]) => void;
  /** Waits until `predicate` holds for the received list (polls every 25 ms). */
  waitFor: (
    predicate: (all: Received[]) => boolean,
    timeoutMs?: number,
    what?: string,
  ) => Promise<Received[]>;
  stop: () => Promise<void>;
};

const headersOf = (req: IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
  );

/** A real HTTP receiver on 127.0.0.1 (webhook, Slack and PagerDuty stand-in) for the routing tests. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const all: Received[] = [];
  const scripted = new Map<string, number[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {}
      all.push({ path, headers: headersOf(req), body, json, at: Date.now() });
      const status = scripted.get(path)?.shift() ?? 200;
      res.writeHead(status, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received: (path) => (path ? all.filter((r) => r.path === path) : [...all]),
    answer: (path, ...statuses) => scripted.set(path, [...(scripted.get(path) ?? []), ...statuses]),
    waitFor: async (predicate, timeoutMs = 15_000, what = "the expected notifications") => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate([...all])) {
        if (Date.now() > deadline) {
          const seen = all.map((r) => `${r.path} ${r.body.slice(0, 300)}`).join("\n");
          throw new Error(`timed out waiting for ${what}; received:\n${seen}`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      return [...all];
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
