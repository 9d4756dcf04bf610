import net from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { e2ePort } from "@/tests/e2e/support/free-port";

// playwright.config.ts asks for the port in the main process and again in every worker: all must get the same.
describe("the browser tests' port", () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.E2E_PORT;
    delete process.env.E2E_PORT;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.E2E_PORT;
    else process.env.E2E_PORT = saved;
  });

  it("is a free port on 127.0.0.1 when none is given, kept in E2E_PORT for the workers", async () => {
    const port = e2ePort();
    expect(process.env.E2E_PORT).toBe(String(port));
    expect(e2ePort()).toBe(port);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });

  it("differs between runs, so parallel checkouts do not meet on one port", () => {
    const first = e2ePort();
    delete process.env.E2E_PORT;
    expect(e2ePort()).not.toBe(first);
  });

  it("is E2E_PORT when given; a value that is no port stops the run with its name", () => {
    process.env.E2E_PORT = "3305";
    expect(e2ePort()).toBe(3305);
    for (const bad of ["abc", "0", "70000", "33.5"]) {
      process.env.E2E_PORT = bad;
      expect(() => e2ePort()).toThrow(`E2E_PORT must be a TCP port, got '${bad}'`);
    }
  });
});
