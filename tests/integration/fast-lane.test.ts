import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { legacyRecord } from "@/tests/support/record-builders";
import { createTestDatabase } from "@/tests/support/test-database";

// The retry guard and ingestion (native and OTLP) are served by fast lanes in front of Next.js's router
// (scripts/app-server.ts): the same handlers, so the same answers, headers and refusals as every other API route,
// without the router's cost. Ingestion's bad input is covered route by route (ingest-errors, otlp-traces), which now
// run through the lane; here, what the lane itself adds: reading the body.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  key = await createTestKey(db.url, "agent", ["ingest", "read"]);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

const ask = (path: string, init: { body?: string; headers?: Record<string, string> } = {}) =>
  fetch(`${app.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...init.headers },
    body: init.body ?? JSON.stringify({ tool: "create_report", holder: "agent-1", leaseMs: 60_000 }),
  });

/** Headers Next.js adds for its own client (RSC) or its streaming, which a JSON answer has no use for. */
const ROUTER_ONLY = new Set([
  "vary",
  "transfer-encoding",
  "content-length",
  "date",
  "keep-alive",
  "connection",
]);
const headersOf = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => !ROUTER_ONLY.has(name)));

describe("the guard's fast lane", () => {
  it("answers without the router, with the same headers as a route Next.js serves", async () => {
    const fast = await ask("/api/v1/operations/lane-1/attempts");
    expect(fast.status).toBe(201);
    expect(await fast.json()).toMatchObject({ decision: "proceed", operationKey: "lane-1" });
    // Next.js's router marks every answer it gives with Vary: rsc, …; the fast lane does not.
    expect(fast.headers.get("vary")).toBeNull();
    const routed = await fetch(`${app.baseUrl}/api/v1/operations/lane-1`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(routed.status).toBe(200);
    expect(routed.headers.get("vary")).toContain("rsc");
    expect(headersOf(fast)).toEqual(headersOf(routed));
    expect(fast.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it("decodes the key as Next.js does: op%3Aone is op:one; a key that is no id is 400 at $.path.key", async () => {
    const encoded = await ask(`/api/v1/operations/${encodeURIComponent("op:one")}/attempts`);
    expect(encoded.status).toBe(201);
    expect((await encoded.json()).operationKey).toBe("op:one");
    const slash = await ask(`/api/v1/operations/${encodeURIComponent("a/b")}/attempts`);
    expect(slash.status).toBe(400);
    expect((await slash.json()).error.issues[0]).toMatchObject({
      path: "$.path.key",
      code: "invalid_operation_key",
    });
  });

  it("a path that is not percent-encoded UTF-8 gets the proxy's 400 invalid_path, not a 500", async () => {
    const response = await ask("/api/v1/operations/%E0%A4%A/attempts");
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({
      code: "invalid_path",
      issues: [{ path: "$.path", code: "invalid_percent_encoding" }],
    });
  });

  it("bad input gets the route's own refusals: 401, 415, 400 invalid_json, 413, 422 at its path; 405 for GET", async () => {
    const anonymous = await fetch(`${app.baseUrl}/api/v1/operations/lane-2/attempts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe("unauthorized");
    const text = await ask("/api/v1/operations/lane-2/attempts", {
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    expect((await text.json()).error.code).toBe("unsupported_media_type");
    const notJson = await ask("/api/v1/operations/lane-2/attempts", { body: '{"tool":' });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.code).toBe("invalid_json");
    const huge = await ask("/api/v1/operations/lane-2/attempts", {
      body: JSON.stringify({ tool: "x".repeat(200_000), holder: "a", leaseMs: 1000 }),
    });
    expect(huge.status).toBe(413);
    expect((await huge.json()).error.code).toBe("payload_too_large");
    const badLease = await ask("/api/v1/operations/lane-2/attempts", {
      body: JSON.stringify({ tool: "create_report", holder: "a", leaseMs: -5 }),
    });
    expect(badLease.status).toBe(422);
    expect((await badLease.json()).error.issues.map((issue: { path: string }) => issue.path)).toContain(
      "$.leaseMs",
    );
    const get = await fetch(`${app.baseUrl}/api/v1/operations/lane-2/attempts`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(get.status).toBe(405);
    // Nothing was stored by any refusal: the operation is still unknown.
    const view = await fetch(`${app.baseUrl}/api/v1/operations/lane-2`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect((await view.json()).status).toBe("none");
  });

  it("a client that hangs up mid-body stores nothing and the server goes on answering", async () => {
    const url = new URL(`${app.baseUrl}/api/v1/operations/lane-3/attempts`);
    await new Promise<void>((resolve) => {
      const request = http.request(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${key}`,
          "content-length": "500",
        },
      });
      request.on("error", () => resolve());
      request.write('{"tool":"create_report",');
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 100);
    });
    const after = await ask("/api/v1/operations/lane-4/attempts");
    expect(after.status).toBe(201);
    const view = await fetch(`${app.baseUrl}/api/v1/operations/lane-3`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect((await view.json()).status).toBe("none");
  });
});

/** Sends `parts` as a chunked body (no Content-Length), then hangs up or waits for the answer. */
function sendInParts(
  path: string,
  parts: Buffer[],
  options: { hangUp?: boolean } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string } | null> {
  const url = new URL(`${app.baseUrl}${path}`);
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    });
    request.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    // Writing on after the server answered and closed is the client's problem, not the test's.
    request.on("error", (error) => (options.hangUp ? resolve(null) : reject(error)));
    for (const part of parts) request.write(part);
    if (options.hangUp) {
      setTimeout(() => {
        request.destroy();
        resolve(null);
      }, 100);
    } else request.end();
  });
}

const storedChains = async () =>
  (
    (await (
      await fetch(`${app.baseUrl}/api/v1/stats`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { total: number }
  ).total;

describe("ingestion's fast lanes", () => {
  it("POST /api/v1/records answers without the router, with the headers of a routed answer, and stores", async () => {
    const record = { ...legacyRecord(), recordId: "rec:lane-1", chainId: "chain:lane-1" };
    const fast = await fetch(`${app.baseUrl}/api/v1/records`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ records: [record] }),
    });
    expect(fast.status).toBe(200);
    expect((await fast.json()).results).toMatchObject([{ recordId: "rec:lane-1", chainId: "chain:lane-1" }]);
    expect(fast.headers.get("vary")).toBeNull();
    // Both answers are under 1 KiB: sent as they are, `no-store, no-transform` (json-response.ts).
    const routed = await fetch(`${app.baseUrl}/api/v1/stats`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(routed.status).toBe(200);
    expect(routed.headers.get("vary")).toContain("rsc");
    expect(headersOf(fast)).toEqual(headersOf(routed));
    const stored = await fetch(`${app.baseUrl}/api/v1/chains/${encodeURIComponent("chain:lane-1")}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(stored.status).toBe(200);
  });

  it("a large answer is gzipped as Next.js gzips one, when the client takes gzip", async () => {
    const records = Array.from({ length: 20 }, (_, i) => ({
      ...legacyRecord(),
      recordId: `rec:lane-gz-${i}`,
      chainId: `chain:lane-gz-${i}`,
    }));
    const post = (acceptEncoding: string) =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        const request = http.request(`${app.baseUrl}/api/v1/records`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${key}`,
            "accept-encoding": acceptEncoding,
          },
        });
        request.on("response", (response) => {
          response.resume();
          response.on("end", () => resolve(response));
        });
        request.on("error", reject);
        request.end(JSON.stringify({ records }));
      });
    const zipped = await post("gzip, deflate");
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zipped.headers.vary).toBe("Accept-Encoding");
    // The same batch again (all duplicates now), to a client that takes no encoding: plain JSON.
    const plain = await post("identity");
    expect(plain.statusCode).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(Number(plain.headers["content-length"])).toBeGreaterThan(1024);
    expect(Number(zipped.headers["content-length"])).toBeLessThan(Number(plain.headers["content-length"]));
  });

  it("POST /v1/traces answers without the router: an empty export is a full success", async () => {
    const fast = await fetch(`${app.baseUrl}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ resourceSpans: [] }),
    });
    expect(fast.status).toBe(200);
    expect(fast.headers.get("vary")).toBeNull();
    expect(fast.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(await fast.json()).toEqual({});
  });

  it("a chunked body past 5 MiB → 413 payload_too_large; far past it, the lane stops reading and closes", async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const over = await sendInParts("/api/v1/records", [
      Buffer.from('{"records":['),
      ...Array.from({ length: 88 }, () => chunk),
    ]);
    expect(over?.status).toBe(413);
    expect(JSON.parse(over?.body ?? "{}").error.code).toBe("payload_too_large");
    expect(over?.headers.connection).not.toBe("close");
    // 12 MiB: past the limit and the 5 MiB the lane drains for a client that sent a little too much.
    const far = await sendInParts(
      "/api/v1/records",
      Array.from({ length: 192 }, () => chunk),
    );
    expect(far?.status).toBe(413);
    expect(far?.headers.connection).toBe("close");
    expect(await storedChains()).toBe(21);
  });

  it("a client that hangs up mid-batch stores nothing and the server goes on ingesting", async () => {
    const before = await storedChains();
    const record = { ...legacyRecord(), recordId: "rec:lane-2", chainId: "chain:lane-2" };
    const text = JSON.stringify({ records: [record] });
    expect(
      await sendInParts("/api/v1/records", [Buffer.from(text.slice(0, 40))], { hangUp: true }),
    ).toBeNull();
    expect(await storedChains()).toBe(before);
    const after = await fetch(`${app.baseUrl}/api/v1/records`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: text,
    });
    expect(after.status).toBe(200);
    expect(await storedChains()).toBe(before + 1);
  });
});
