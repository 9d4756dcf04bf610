/**
 * The one local receiver both systems notify: a node:http server on 127.0.0.1 that timestamps each webhook on the
 * bench's own clock (`performance.now()`), by source (the path: /receipt or /alertmanager) and by the alerts it
 * names (Receipt's `alerts[].chainId`, Alertmanager's `alerts[].labels.chain`).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";

/** One webhook: when it arrived, the alerts it names and its body's size in bytes. */
export type Arrival = { source: string; at: number; ids: string[]; bytes: number };

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
  // Each waiter holds the keys it still misses; an arrival removes its new keys, so a webhook costs the bench a few
  // set operations however many ids are awaited (rescanning them all on every webhook took CPU from the systems).
  const waiters = new Set<{ missing: Set<string>; finish: () => void }>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const at = performance.now();
      const source = (req.url ?? "/").split("?")[0]?.slice(1) ?? "";
      const body = Buffer.concat(chunks);
      const ids = idsOf(body.toString("utf8"));
      all.push({ source, at, ids, bytes: body.length });
      const fresh: string[] = [];
      for (const id of ids) {
        const key = `${source} ${id}`;
        if (firstSeen.has(key)) continue;
        firstSeen.set(key, at);
        fresh.push(key);
      }
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      for (const waiter of waiters) {
        for (const key of fresh) waiter.missing.delete(key);
        if (waiter.missing.size === 0) waiter.finish();
      }
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
        const waiter = {
          missing: new Set(ids.map((id) => `${source} ${id}`).filter((key) => !firstSeen.has(key))),
          finish: () => {
            waiters.delete(waiter);
            clearTimeout(timer);
            resolve(collect());
          },
        };
        const timer = setTimeout(waiter.finish, timeoutMs);
        if (waiter.missing.size === 0) waiter.finish();
        else waiters.add(waiter);
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
