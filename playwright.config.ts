import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
import { E2E_ADMIN } from "./tests/e2e/support/credentials";
import { e2ePort } from "./tests/e2e/support/free-port";
import { E2E_OIDC_CLIENT } from "./tests/e2e/support/oidc";

// Debian's Chromium where it exists (CI and this machine cannot download Playwright's own build); Playwright's bundled
// browser on a developer machine that has one. Headless runs take Debian's `chromium-headless-shell`, the same Chromium
// release built as the headless shell Playwright itself runs headless: it draws a frame only when asked, and took half
// the CPU of `chromium --headless` over the same specs (docs/BENCHMARKS.md, "Test loop"). `--headed` needs the full one.
const headed =
  process.argv.includes("--headed") || process.argv.includes("--ui") || Boolean(process.env.PWDEBUG);
const debianChromium = [...(headed ? [] : ["/usr/bin/chromium-headless-shell"]), "/usr/bin/chromium"].find(
  (candidate) => existsSync(candidate),
);
const launchOptions = debianChromium
  ? {
      executablePath: debianChromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    }
  : {};

// A free port unless E2E_PORT names one, so runs in parallel checkouts never meet on the same app.
const port = e2ePort();
// The test OpenID Connect provider's port: tests/e2e/oidc.spec.ts starts it there before its first sign-in (the app
// discovers it on first use only).
const oidcPort = e2ePort("E2E_OIDC_PORT");

export default defineConfig({
  testDir: "tests/e2e",
  // Each shard of `npm test` its own (Playwright empties it at start).
  outputDir: process.env.E2E_OUTPUT_DIR ?? "test-results/e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  // Vitest and another shard run alongside on the same two cores (scripts/test-loop/test-all.ts): a page can take
  // seconds to show what a test waits for. A longer wait for a condition that does come costs nothing; one that never comes still fails.
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    // A trace records DOM snapshots and a screencast of every test to keep the failing ones: a quarter of the
    // browser's CPU. `npm test` (scripts/test-loop/test-all.ts) turns it off; a spec run alone keeps it.
    trace: process.env.RECEIPT_E2E_TRACE === "off" ? "off" : "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions,
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"], launchOptions } }],
  webServer: {
    command: "npx tsx tests/e2e/support/start-app.ts",
    url: `http://127.0.0.1:${port}/api/health`,
    env: {
      PORT: String(port),
      RECEIPT_ADMIN_USER: E2E_ADMIN.username,
      RECEIPT_ADMIN_PASSWORD: E2E_ADMIN.password,
      // Seeded records carry fixed dates: no retention, so they stay whatever the day.
      RECEIPT_RETENTION: "0",
      // The specs' webhook receivers listen on 127.0.0.1.
      RECEIPT_OUTBOUND_ALLOW: "127.0.0.0/8,::1",
      RECEIPT_OIDC_ISSUER: `http://127.0.0.1:${oidcPort}`,
      RECEIPT_OIDC_CLIENT_ID: E2E_OIDC_CLIENT.clientId,
      RECEIPT_OIDC_CLIENT_SECRET: E2E_OIDC_CLIENT.clientSecret,
      RECEIPT_OIDC_NAME: E2E_OIDC_CLIENT.name,
    },
    timeout: 180_000,
    reuseExistingServer: false,
    // SIGTERM, so start-app.ts stops the launcher and deletes the throwaway database (a SIGKILL left it in /tmp).
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    stdout: "ignore",
    stderr: "pipe",
  },
});
