import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
import { E2E_ADMIN } from "./tests/e2e/support/credentials";
import { e2ePort } from "./tests/e2e/support/free-port";

// Debian's Chromium where it exists (CI and this machine cannot download Playwright's own build);
// Playwright's bundled browser on a developer machine that has one.
const debianChromium = "/usr/bin/chromium";
const launchOptions = existsSync(debianChromium)
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

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results/e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
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
    },
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
  },
});
