import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { appAddress, waitUntilHealthy } from "@/lib/server/app-ready";

// `npm start` says "Receipt is ready at …" once GET /api/health answers 200 (scripts/serve.ts), not when Next.js
// spawns or starts listening.
describe("appAddress", () => {
  it("shows localhost for a wildcard bind and probes the loopback of its family", () => {
    expect(appAddress(undefined, 3000)).toEqual({
      shown: "http://localhost:3000",
      probe: "http://127.0.0.1:3000",
    });
    expect(appAddress("0.0.0.0", 8080)).toEqual({
      shown: "http://localhost:8080",
      probe: "http://127.0.0.1:8080",
    });
    expect(appAddress("::", 3000)).toEqual({ shown: "http://localhost:3000", probe: "http://[::1]:3000" });
  });

  it("names a specific address as it is bound, IPv6 in brackets", () => {
    expect(appAddress("127.0.0.1", 3000)).toEqual({
      shown: "http://127.0.0.1:3000",
      probe: "http://127.0.0.1:3000",
    });
    expect(appAddress("::1", 3000).shown).toBe("http://[::1]:3000");
    expect(appAddress("receipt.internal", 80).shown).toBe("http://receipt.internal:80");
  });
});

describe("waitUntilHealthy", () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  /** A real HTTP server whose /api/health answers the given statuses in turn, then the last one. */
  async function healthAnswering(statuses: number[]): Promise<{ url: string; asked: () => number }> {
    let asked = 0;
    server = createServer((request, response) => {
      const status = statuses[Math.min(asked, statuses.length - 1)] as number;
      if (request.url === "/api/health") asked += 1;
      response.writeHead(request.url === "/api/health" ? status : 404).end();
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, asked: () => asked };
  }

  it("waits through 503s (database not reachable yet) and resolves on the first 200", async () => {
    const app = await healthAnswering([503, 503, 200]);
    expect(await waitUntilHealthy(app.url, { stopped: () => false, everyMs: 10 })).toBe(true);
    expect(app.asked()).toBe(3);
  });

  it("keeps asking while nothing listens, and gives up once the launcher is stopping", async () => {
    const app = await healthAnswering([200]);
    const url = app.url;
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    let checks = 0;
    const ready = await waitUntilHealthy(url, { stopped: () => ++checks > 3, everyMs: 10 });
    expect(ready).toBe(false);
    expect(checks).toBe(4);
  });

  it("never resolves ready while the app answers only 503", async () => {
    const app = await healthAnswering([503]);
    let stopping = false;
    const waiting = waitUntilHealthy(app.url, { stopped: () => stopping, everyMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    stopping = true;
    expect(await waiting).toBe(false);
    expect(app.asked()).toBeGreaterThan(1);
  });
});
