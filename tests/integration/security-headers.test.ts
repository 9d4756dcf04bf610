import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseContentSecurityPolicy, scriptNonce } from "@/tests/support/csp";
import { type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";

// The browser-facing policy of every response, read off the production build over real HTTP.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${app.baseUrl}${path}`, { headers, redirect: "manual" });

/** The headers every response carries, page, API or static file. */
function expectFixedHeaders(response: Response) {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("x-frame-options")).toBe("DENY");
  expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  expect(response.headers.get("cross-origin-opener-policy")).toBe("same-origin");
  expect(response.headers.get("cross-origin-resource-policy")).toBe("same-origin");
  expect(response.headers.get("permissions-policy")).toBe(
    "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
  );
}

/**
 * A page's policy: scripts only with this response's nonce, never inline or eval'd ones; no framing. In a page's
 * HTML, every script and style element Next.js rendered carries that nonce. Returns the nonce.
 */
async function expectPagePolicy(response: Response): Promise<string> {
  expectFixedHeaders(response);
  const header = response.headers.get("content-security-policy") ?? "";
  const policy = parseContentSecurityPolicy(header);
  const nonce = scriptNonce(policy) ?? "";
  expect(nonce, header).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  expect(policy.get("script-src")).toEqual(["'self'", `'nonce-${nonce}'`, "'strict-dynamic'"]);
  expect(policy.get("default-src")).toEqual(["'self'"]);
  expect(policy.get("style-src-elem")).toEqual(["'self'", `'nonce-${nonce}'`]);
  expect(policy.get("style-src-attr")).toEqual(["'unsafe-inline'"]);
  expect(policy.get("object-src")).toEqual(["'none'"]);
  expect(policy.get("base-uri")).toEqual(["'none'"]);
  expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
  expect(header).not.toMatch(/unsafe-eval/);
  const contentType = response.headers.get("content-type") ?? "";
  if ((response.status === 200 || response.status === 404) && !contentType.startsWith("text/x-component")) {
    expect(contentType).toMatch(/^text\/html/);
    const html = await response.text();
    const elements = [...html.matchAll(/<(script|style)\b[^>]*>/g)].map((match) => match[0]);
    expect(elements.filter((tag) => tag.startsWith("<script")).length).toBeGreaterThan(0);
    for (const tag of elements) expect(tag).toContain(` nonce="${nonce}"`);
  } else {
    await response.body?.cancel();
  }
  return nonce;
}

describe("security headers", () => {
  const nonces: string[] = [];
  let cookie = "";

  it("first-run setup and the signed-out pages carry a nonce policy, redirects included", async () => {
    const setup = await get("/setup");
    expect(setup.status).toBe(200);
    nonces.push(await expectPagePolicy(setup));
    cookie = await adminCookie(app.baseUrl);
    for (const [path, status] of [
      ["/sign-in", 200],
      ["/", 307],
      ["/chains/chain%3Aany", 307],
      ["/setup", 307],
      ["/no-such-page", 404],
    ] as const) {
      const response = await get(path);
      expect(response.status, path).toBe(status);
      nonces.push(await expectPagePolicy(response));
    }
  });

  it("every dashboard page, signed in, runs only scripts with its own response's nonce", async () => {
    for (const [path, status] of [
      ["/", 200],
      ["/chains", 200],
      ["/chains?state=effect_unknown", 200],
      // An unknown chain or session answers 404, with the same policy.
      ["/chains/chain%3Anone", 404],
      ["/sessions/session%3Anone", 404],
      ["/alerts", 200],
      ["/problems", 200],
      ["/search?q=chain%3Anone", 200],
      ["/queues/false-success", 200],
      ["/queues/effect-unknown", 200],
      ["/coverage", 200],
      ["/routing", 200],
      // Redirects inside the streamed dashboard (loading.tsx): a 200 whose payload sends the browser on.
      ["/settings", 200],
      ["/settings/keys", 200],
      ["/sign-in", 307],
      ["/no-such-page", 404],
      ["/chains/a/b/c", 404],
    ] as const) {
      const response = await get(path, { cookie });
      expect(response.status, path).toBe(status);
      nonces.push(await expectPagePolicy(response));
    }
    // A client-side navigation's payload request goes through the same proxy (Next.js first sends it to the URL
    // with its cache-busting `_rsc` parameter).
    const unkeyed = await get("/coverage", { cookie, rsc: "1" });
    expect(unkeyed.status).toBe(307);
    const keyed = unkeyed.headers.get("location") ?? "";
    expect(keyed).toMatch(/^\/coverage\?_rsc/);
    nonces.push(await expectPagePolicy(unkeyed));
    const payload = await get(keyed, { cookie, rsc: "1" });
    expect(payload.status).toBe(200);
    expect(payload.headers.get("content-type")).toMatch(/^text\/x-component/);
    nonces.push(await expectPagePolicy(payload));
  });

  it("no two page responses share a nonce, the same page asked twice included", async () => {
    const again = await Promise.all([get("/", { cookie }), get("/", { cookie })]);
    for (const response of again) nonces.push(await expectPagePolicy(response));
    expect(nonces.length).toBe(27);
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  it("API answers and static files may load nothing and be framed by no one", async () => {
    const html = await (await get("/sign-in")).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/_next\/static\/[^"]+\.(?:js|css))"/g)].map(
      (m) => m[1],
    );
    expect(assets.some((asset) => asset?.endsWith(".js"))).toBe(true);
    expect(assets.some((asset) => asset?.endsWith(".css"))).toBe(true);
    const checks: Array<[Response, number]> = [
      [await get("/api/health"), 200],
      [await get("/api/v1/chains"), 401],
      [await get("/api/v1/chains", { cookie }), 200],
      [await get("/api/v1/chains/chain%3Anone", { cookie }), 404],
      [await get("/api/no-such-route"), 404],
      // The Prometheus endpoint and the OTLP receiver are answers too (issue 39 §9: /metrics had no CSP).
      [await get("/metrics"), 401],
      [await get("/metrics", { cookie }), 200],
      [await fetch(`${app.baseUrl}/v1/traces`, { method: "POST" }), 401],
      [
        await fetch(`${app.baseUrl}/api/v1/records`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{",
        }),
        401,
      ],
      ...(await Promise.all(
        assets.map(async (asset) => [await get(asset ?? ""), 200] as [Response, number]),
      )),
      [await get("/_next/static/no-such-file.js"), 404],
    ];
    for (const [response, status] of checks) {
      expect(response.status, response.url).toBe(status);
      expectFixedHeaders(response);
      expect(response.headers.get("content-security-policy"), response.url).toBe(
        "default-src 'none'; frame-ancestors 'none'",
      );
      await response.body?.cancel();
    }
  });
});
