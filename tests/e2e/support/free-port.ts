import { spawnSync } from "node:child_process";

// Playwright's config is synchronous and evaluated again in every worker, so the port is found once, in a short
// child process, and handed on through the environment the workers inherit.
const PRINT_FREE_PORT = `
const server = require("node:net").createServer();
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(String(server.address().port));
  server.close();
});`;

/** A port for this run: `variable` (E2E_PORT, the app's) when given, else a port free on 127.0.0.1 (then kept there). */
export function e2ePort(variable = "E2E_PORT"): number {
  if (!process.env[variable]) {
    const found = spawnSync(process.execPath, ["-e", PRINT_FREE_PORT], { encoding: "utf8" });
    if (found.status !== 0 || !/^\d+$/.test(found.stdout)) {
      throw new Error(`could not find a free port: ${found.stderr}`);
    }
    process.env[variable] = found.stdout;
  }
  const port = Number(process.env[variable]);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`${variable} must be a TCP port, got '${process.env[variable]}'`);
  }
  return port;
}
