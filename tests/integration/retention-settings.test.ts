import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LAUNCHER_EXIT } from "@/lib/server/launcher";

// `npm start` with a bad retention setting stops before it opens a database, naming the variable: a typo never
// leaves an instance pruning by a default nobody chose.
const root = path.resolve(import.meta.dirname, "../..");

describe("the launcher's retention settings", () => {
  // One variable: parseEnv's refusal of each bad value is tests/unit/env.test.ts; a start takes seconds.
  it("refuses RECEIPT_OTLP_SPAN_RETENTION_DAYS=0 with a message naming it", () => {
    const [name, value] = ["RECEIPT_OTLP_SPAN_RETENTION_DAYS", "0"];
    const { DATABASE_URL: _unused, ...env } = process.env;
    const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/serve.ts", "start"], {
      cwd: root,
      env: { ...env, [name]: value, RECEIPT_DATA_DIR: "/nonexistent/receipt-retention-settings" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(LAUNCHER_EXIT.startFailed);
    expect(result.stderr).toContain(`${name}:`);
  }, 70_000);
});
