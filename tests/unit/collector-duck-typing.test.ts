import { describe, expect, it } from "vitest";
import {
  httpStatusOfError,
  isConnectionClosedError,
  transportKindOf,
} from "@/packages/collector/src/sdk/duck-typing";

// Another copy of the SDK has other classes with the same names and members: no `instanceof`.
describe("transports and errors recognised without instanceof", () => {
  it("reads the transport kind from the class name, a parent's name, or the members a minifier keeps", () => {
    class StdioClientTransport {}
    class StreamableHTTPClientTransport {}
    class SSEClientTransport {}
    class MyStdio extends StdioClientTransport {}
    expect(transportKindOf(new StdioClientTransport())).toBe("stdio");
    expect(transportKindOf(new StreamableHTTPClientTransport())).toBe("streamable-http");
    expect(transportKindOf(new SSEClientTransport())).toBe("sse");
    expect(transportKindOf(new MyStdio())).toBe("stdio");
    // Minified: class `a` with the members each transport exposes.
    class a {
      sessionId = undefined;
      terminateSession() {}
    }
    class b {
      pid = 1;
      stderr = null;
    }
    expect(transportKindOf(new a())).toBe("streamable-http");
    expect(transportKindOf(new b())).toBe("stdio");
    expect(transportKindOf({ send() {}, start() {} })).toBe("other");
  });

  it("knows 'connection closed' from either SDK by its code, nothing else", () => {
    expect(isConnectionClosedError(Object.assign(new Error("Connection closed"), { code: -32000 }))).toBe(
      true,
    );
    expect(isConnectionClosedError(Object.assign(new Error("closed"), { code: "CONNECTION_CLOSED" }))).toBe(
      true,
    );
    expect(isConnectionClosedError(Object.assign(new Error("timeout"), { code: -32001 }))).toBe(false);
    expect(isConnectionClosedError(new Error("Connection closed"))).toBe(false);
    expect(isConnectionClosedError(undefined)).toBe(false);
  });

  it("reads an HTTP status from 1.x's code or 2.x's status, never from a JSON-RPC code", () => {
    expect(httpStatusOfError({ code: 401 })).toBe(401);
    expect(httpStatusOfError({ code: "CLIENT_HTTP_AUTHENTICATION", status: 403 })).toBe(403);
    expect(httpStatusOfError({ code: -32000 })).toBeUndefined();
    expect(httpStatusOfError("401")).toBeUndefined();
  });
});
