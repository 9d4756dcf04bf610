import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** Unit files that set process.env before the code under test reads its settings (once per process). */
const UNIT_FILES_WITH_OWN_ENV = [
  "tests/unit/outbound-guard.test.ts",
  "tests/unit/delivery-http-post.test.ts",
];

/**
 * Integration files that set process.env (DATABASE_URL and settings) and then run server code in their own process:
 * settings and clients are read once per process, so each gets a process of its own ("integration-env").
 */
const INTEGRATION_FILES_WITH_OWN_ENV = [
  "tests/integration/chain-list-totals.test.ts",
  "tests/integration/destination-reads.test.ts",
  "tests/integration/group-scheduling.test.ts",
  "tests/integration/isolated-writes.test.ts",
  "tests/integration/job-isolation.test.ts",
  "tests/integration/routing-identity.test.ts",
  "tests/integration/wake-listener.test.ts",
];

const integration = {
  environment: "node" as const,
  globalSetup: ["tests/integration/global-setup.ts"],
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./", import.meta.url)) } },
  test: {
    // The apps the tests start load a route's code when it is first asked for, not every route at start (next.config.ts):
    // a test file asks for a handful of the app's routes, and preloading all of them cost 0.65 s of CPU a start.
    env: { RECEIPT_PRELOAD_ROUTES: "0" },
    projects: [
      {
        extends: true,
        // One module graph for every unit file (no re-import per file): the quick loop's CPU halves. Files that set
        // process.env for the settings read once per process (lib/server/env.ts) run in "unit-env", one process each.
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          exclude: UNIT_FILES_WITH_OWN_ENV,
          environment: "node",
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: "unit-env", include: UNIT_FILES_WITH_OWN_ENV, environment: "node" },
      },
      {
        extends: true,
        // One process a worker for every file (no fresh process and module graph per file): the files talk to the apps
        // they start over HTTP, and a fresh process cost about a fifth of the suite's CPU.
        test: {
          ...integration,
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          exclude: INTEGRATION_FILES_WITH_OWN_ENV,
          isolate: false,
        },
      },
      {
        extends: true,
        test: { ...integration, name: "integration-env", include: INTEGRATION_FILES_WITH_OWN_ENV },
      },
      {
        extends: true,
        test: {
          name: "collector",
          include: ["tests/collector/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        // The collector as an adopter gets it: packed, installed into a temp dir, run with plain node.
        test: {
          name: "package",
          include: ["tests/package/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
