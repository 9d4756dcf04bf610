// The outbound guard on real sockets: a literal address is refused before any request, a name at connect time
// (node:net calls the guard's lookup), and a resolver that rebinds a name to a local address is refused too.
import { createServer, type Server } from "node:http";
import type { LookupAddress } from "node:dns";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedLookup, type ResolveAll } from "@/lib/server/outbound/outbound-guard";
import { postOnce } from "@/lib/server/routing/http-post";

// The production default: nothing private or local is allowed.
process.env.RECEIPT_OUTBOUND_ALLOW = "";

let server: Server;
let port: number;
let requests = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(200).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("postOnce under the default policy", () => {
  it("refuses a literal loopback address without sending, as a permanent refusal with the policy's sentence", async () => {
    const before = requests;
    const result = await postOnce(`http://127.0.0.1:${port}/hook`, "{}", {}, 2000);
    expect(result).toMatchObject({
      ok: false,
      statusCode: null,
      refused: true,
      error: "refused by the outbound policy (loopback address)",
    });
    expect(requests).toBe(before);
  });

  it("refuses a name that resolves to loopback at connect time (the socket error is never shown)", async () => {
    const before = requests;
    const result = await postOnce(`http://localhost:${port}/hook`, "{}", {}, 2000);
    expect(result).toMatchObject({
      ok: false,
      refused: true,
      error: "refused by the outbound policy (loopback address)",
    });
    expect(requests).toBe(before);
  });

  it("refuses decimal, metadata and vendor look-alikes before any lookup", async () => {
    expect((await postOnce(`http://2130706433:${port}/`, "{}", {}, 2000)).error).toBe(
      "refused by the outbound policy (loopback address)",
    );
    expect(
      (await postOnce("http://metadata.google.internal/computeMetadata/v1/", "{}", {}, 2000)).error,
    ).toBe("refused by the outbound policy (metadata address)");
    const slack = await postOnce("https://attacker.invalid/services/T/B/X", "{}", {}, 2000, "slack");
    expect(slack).toMatchObject({ refused: true, error: expect.stringContaining("https://hooks.slack.com") });
  });
});

describe("guardedLookup", () => {
  const lookup = (resolve: ResolveAll, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((done) =>
      guardedLookup(8080, resolve)("receiver.example", all ? { all: true } : {}, (error, address) =>
        done({ error, address }),
      ),
    );
  const answers = (...addresses: string[]): ResolveAll => {
    return (_hostname, _options, callback) =>
      callback(
        null,
        addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
      );
  };

  it("passes public addresses on in the form node:net asked for", async () => {
    expect(await lookup(answers("93.184.216.34", "2606:2800:220:1::1"), true)).toEqual({
      error: null,
      address: [
        { address: "93.184.216.34", family: 4 },
        { address: "2606:2800:220:1::1", family: 6 },
      ],
    });
    const one = await lookup(answers("93.184.216.34"), false);
    expect(one).toEqual({ error: null, address: "93.184.216.34" });
  });

  it("refuses the connection when any address is refused (a rebinding answer mixes one in)", async () => {
    const { error } = await lookup(answers("93.184.216.34", "127.0.0.1"), true);
    expect(error?.message).toBe("refused by the outbound policy (loopback address)");
    expect(error?.code).toBe("EOUTBOUNDPOLICY");
  });

  it("judges every lookup afresh: a name that rebinds between two connections is refused on the second", async () => {
    let calls = 0;
    const rebinding: ResolveAll = (hostname, options, callback) =>
      answers(calls++ === 0 ? "93.184.216.34" : "169.254.169.254")(hostname, options, callback);
    expect((await lookup(rebinding, true)).error).toBeNull();
    expect((await lookup(rebinding, true)).error?.message).toBe(
      "refused by the outbound policy (metadata address)",
    );
  });

  it("passes the resolver's own errors through", async () => {
    const failing: ResolveAll = (_hostname, _options, callback) =>
      callback(Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }), []);
    expect((await lookup(failing, true)).error?.code).toBe("ENOTFOUND");
  });
});
