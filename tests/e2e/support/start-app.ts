// The app under test for Playwright: the production build on a throwaway embedded PostgreSQL (or DATABASE_URL),
// so e2e tests never touch a developer's .data/.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { e2eAppInfoPath } from "./app-info";

const root = path.resolve(import.meta.dirname, "../../..");
const dataDir = mkdtempSync(path.join(tmpdir(), "receipt-e2e-"));
// Where this app's data lives, for specs that put rows straight into its database (tests/e2e/support/team.ts).
const appInfo = e2eAppInfoPath(process.env.PORT ?? "");
writeFileSync(appInfo, JSON.stringify({ dataDir }));
// The launcher itself (as `npm start` execs it), so the SIGTERM below reaches it rather than stopping at npx.
const app = spawn(process.execPath, ["--import", "tsx", "scripts/serve.ts", "start"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, RECEIPT_DATA_DIR: dataDir, RECEIPT_E2E: "1" },
});
function stop() {
  app.kill("SIGTERM");
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
app.on("exit", (code) => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(appInfo, { force: true });
  process.exit(code ?? 0);
});
