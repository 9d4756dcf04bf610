// One POST of the delivery engine against a real local HTTP server: keep-alive reuse, Retry-After, timeouts, errors.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import { postOnce } from "@/lib/server/routing/http-post";

// The receiver listens on 127.0.0.1, which the outbound policy refuses unless allowed (outbound-guard.test.ts).
process.env.RECEIPT_OUTBOUND_ALLOW = "127.0.0.0/8";

let server: Server;
let base: string;
let connections = 0;
const bodies: string[] = [];
const authorizations: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      authorizations.push(req.headers.authorization);
      if (req.url === "/hang") return; // never answers
      if (req.url === "/limited") return res.writeHead(429, { "retry-after": "2" }).end();
      res.writeHead(200).end("ok");
    });
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("postOnce", () => {
  it("POSTs the exact body and reuses one keep-alive connection for consecutive requests", async () => {
    const before = connections;
    for (const n of [1, 2, 3]) {
      const result = await postOnce(
        `${base}/ok`,
        `{"n":${n},"é":true}`,
        { "content-type": "application/json" },
        2000,
      );
      expect(result).toMatchObject({ ok: true, statusCode: 200, error: null, retryAfter: null });
    }
    expect(bodies.slice(-3)).toEqual(['{"n":1,"é":true}', '{"n":2,"é":true}', '{"n":3,"é":true}']);
    expect(connections - before).toBe(1);
  });

  it("reports a 429's Retry-After as sent", async () => {
    expect(await postOnce(`${base}/limited`, "{}", {}, 2000)).toMatchObject({
      ok: false,
      statusCode: 429,
      error: "HTTP 429",
      retryAfter: "2",
    });
  });

  it("gives up on a hanging receiver after the timeout", async () => {
    const started = Date.now();
    const result = await postOnce(`${base}/hang`, "{}", {}, 300);
    expect(result).toMatchObject({ ok: false, statusCode: null, error: "timeout after 300 ms" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("names a refused connection and an unsupported URL", async () => {
    const port = await portOutsideEphemeralRange();
    expect((await postOnce(`http://127.0.0.1:${port}/`, "{}", {}, 2000)).error).toBe("ECONNREFUSED");
    expect((await postOnce("ftp://127.0.0.1/", "{}", {}, 2000)).error).toBe("unsupported protocol ftp:");
  });

  it("sends a URL's own credential as Basic authorization, unless a header names one", async () => {
    const withCredential = base.replace("http://", "http://bot:s3cr%20et@");
    expect((await postOnce(`${withCredential}/ok`, "{}", {}, 2000)).ok).toBe(true);
    expect(authorizations.at(-1)).toBe(`Basic ${Buffer.from("bot:s3cr et").toString("base64")}`);
    expect((await postOnce(`${withCredential}/ok`, "{}", { Authorization: "Bearer given" }, 2000)).ok).toBe(
      true,
    );
    expect(authorizations.at(-1)).toBe("Bearer given");
  });

  it("verifies the receiver's TLS certificate: a self-signed one is refused, named, and gets no body", async () => {
    // A throwaway self-signed pair for 127.0.0.1 (tests/fixtures/tls): no CA this process trusts signed it.
    const fixture = (name: string) => readFileSync(`tests/fixtures/tls/self-signed-127.0.0.1.${name}.pem`);
    let received = 0;
    const tls = createTlsServer({ key: fixture("key"), cert: fixture("cert") }, (req, res) => {
      received++;
      req.resume();
      res.writeHead(200).end("ok");
    });
    await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
    try {
      const port = (tls.address() as AddressInfo).port;
      expect(await postOnce(`https://127.0.0.1:${port}/hook`, "{}", {}, 2000)).toMatchObject({
        ok: false,
        statusCode: null,
        error: "DEPTH_ZERO_SELF_SIGNED_CERT",
      });
      expect(received).toBe(0);
    } finally {
      tls.closeAllConnections();
      await new Promise((resolve) => tls.close(resolve));
    }
  });
});
