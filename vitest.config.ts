import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** Unit files that set process.env before the code under test reads its settings (once per process). */
const UNIT_FILES_WITH_OWN_ENV = [
  "tests/unit/outbound-guard.test.ts",
  "tests/unit/delivery-http-post.test.ts",
];

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./", import.meta.url)) } },
  test: {
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
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/integration/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
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
