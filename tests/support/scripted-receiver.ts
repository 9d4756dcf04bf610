import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a receiver got: the exact body bytes (signatures are over them) and the headers. */
export type Received = {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: unknown;
  at: number;
};

/** An answer to one request: a status with headers, or "hold" (the response never comes until the receiver stops). */
export type Answer = { status: number; headers?: Record<string, string> } | "hold";

export type ScriptedReceiver = {
  url: (path: string) => string;
  received: (path?: string) => Received[];
  /** Answers for `path`, one per request in order, before falling back to `fallback(path)` (200 by default). */
  script: (path: string, ...answers: Answer[]) => void;
  /** Requests being held open right now, optionally only those whose path starts with `prefix`. */
  holding: (prefix?: string) => number;
  waitFor: (
    predicate: (all: Received[]) => boolean,
    timeoutMs?: number,
    what?: string,
  ) => Promise<Received[]>;
  stop: () => Promise<void>;
};

/**
 * A real HTTP receiver on 127.0.0.1 whose answers are scripted per path: statuses with headers (Retry-After), or a
 * hang that holds the request open, as a stuck receiver does. `fallback` answers requests the script does not cover.
 */
export async function startScriptedReceiver(
  fallback: (path: string) => Answer = () => ({ status: 200 }),
): Promise<ScriptedReceiver> {
  const all: Received[] = [];
  const scripted = new Map<string, Answer[]>();
  const held = new Map<ServerResponse, string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {}
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
      );
      all.push({ path, headers, body, json, at: Date.now() });
      const answer = scripted.get(path)?.shift() ?? fallback(path);
      if (answer === "hold") {
        held.set(res, path);
        res.on("close", () => held.delete(res));
        return;
      }
      res
        .writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
        .end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received: (path) => (path ? all.filter((r) => r.path === path) : [...all]),
    script: (path, ...answers) => scripted.set(path, [...(scripted.get(path) ?? []), ...answers]),
    holding: (prefix = "") => [...held.values()].filter((path) => path.startsWith(prefix)).length,
    waitFor: async (predicate, timeoutMs = 15_000, what = "the expected requests") => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate([...all])) {
        if (Date.now() > deadline) {
          const seen = all.map((r) => `${r.path} ${r.body.slice(0, 200)}`).join("\n");
          throw new Error(`timed out waiting for ${what}; received:\n${seen}`);
        }
        await new Promise((r) => setTimeout(r, 10));
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
