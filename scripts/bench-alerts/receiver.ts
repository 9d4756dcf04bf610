/**
 * The one local receiver both systems notify: a node:http server on 127.0.0.1 that timestamps each webhook on the
 * bench's own clock (`performance.now()`), by source (the path: /receipt or /alertmanager) and by the alerts it
 * names (Receipt's `alerts[].chainId`, Alertmanager's `alerts[].labels.chain`).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";

export type Arrival = { source: string; at: number; ids: string[] };

type Alerted = { chainId?: string; labels?: Record<string, string> };

export type BenchReceiver = {
  url: (source: string) => string;
  /** Every webhook so far from `source`, in arrival order. */
  arrivals: (source: string) => Arrival[];
  /** Resolves with each id's first arrival time once all of `ids` arrived from `source`, or at the timeout. */
  waitForAll: (source: string, ids: readonly string[], timeoutMs: number) => Promise<Map<string, number>>;
  stop: () => Promise<void>;
};

function idsOf(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as { alerts?: Alerted[] };
    return (parsed.alerts ?? []).flatMap((a) => a.chainId ?? a.labels?.chain ?? []);
  } catch {
    return [];
  }
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const all: Arrival[] = [];
  const firstSeen = new Map<string, number>(); // `${source} ${id}` → first arrival
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const at = performance.now();
      const source = (req.url ?? "/").split("?")[0]?.slice(1) ?? "";
      const ids = idsOf(Buffer.concat(chunks).toString("utf8"));
      all.push({ source, at, ids });
      for (const id of ids) if (!firstSeen.has(`${source} ${id}`)) firstSeen.set(`${source} ${id}`, at);
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      for (const wake of waiters) wake();
    });
  });
  server.keepAliveTimeout = 70_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (source) => `http://127.0.0.1:${port}/${source}`,
    arrivals: (source) => all.filter((a) => a.source === source),
    waitForAll: (source, ids, timeoutMs) =>
      new Promise((resolve) => {
        const collect = () => {
          const seen = new Map<string, number>();
          for (const id of ids) {
            const at = firstSeen.get(`${source} ${id}`);
            if (at !== undefined) seen.set(id, at);
          }
          return seen;
        };
        const finish = () => {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(collect());
        };
        const check = () => {
          if (ids.every((id) => firstSeen.has(`${source} ${id}`))) finish();
        };
        const timer = setTimeout(finish, timeoutMs);
        waiters.add(check);
        check();
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
