// `npm start` / `npm run dev`: resolve the database (DATABASE_URL, or the embedded PostgreSQL under .data/),
// apply pending migrations, then run Next.js with DATABASE_URL set. Ctrl-C stops Next and the embedded database.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { getPrisma } from "../lib/server/db/client";
import { embeddedDataDir, openDatabase } from "../lib/server/db/connection-string";
import { alertSettings } from "../lib/server/alerts/settings";
import { ensureAdminFromEnv, needsFirstRunSetup } from "../lib/server/auth/sessions";
import { signInThrottleSettings } from "../lib/server/auth/throttle-settings";
import { applyMigrations } from "../lib/server/db/migrate";
import { readEnv } from "../lib/server/env";
import { spawnNext } from "../lib/server/next-server";

const mode = process.argv[2] === "dev" ? "dev" : "start";
const root = path.resolve(import.meta.dirname, "..");

let env: ReturnType<typeof readEnv>;
try {
  env = readEnv();
  alertSettings(); // the alert delivery variables too: a typo fails here, not at the first alert
  signInThrottleSettings(); // and the sign-in throttle's, not at the first sign-in
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

const db = await openDatabase();
const applied = await applyMigrations(db.url);
if (applied.length) console.error(`receipt: applied migrations ${applied.join(", ")}`);
console.error(
  `receipt: database ${process.env.DATABASE_URL ? "at DATABASE_URL" : `embedded (${embeddedDataDir()})`}`,
);

const childEnv = { ...process.env, DATABASE_URL: db.url, PORT: String(env.PORT) };
process.env.DATABASE_URL = db.url;
await ensureAdminFromEnv(env.RECEIPT_ADMIN_USER, env.RECEIPT_ADMIN_PASSWORD);
if (!env.RECEIPT_ADMIN_PASSWORD && (await needsFirstRunSetup())) {
  console.error(`receipt: no user yet — open http://localhost:${env.PORT}/setup to create the admin`);
}
if (mode === "start" && !existsSync(path.join(root, ".next/BUILD_ID"))) {
  console.error("receipt: no production build yet; building once (npm run build rebuilds)");
  const code = await new Promise<number>((resolve) => {
    spawn("npm", ["run", "build"], { cwd: root, stdio: "inherit", env: childEnv }).on("exit", (c) =>
      resolve(c ?? 1),
    );
  });
  if (code !== 0) {
    await db.stop();
    process.exit(code);
  }
}

// Idle keep-alive sockets outlive a load balancer's (typically 60 s): the server never closes one under a request.
const next = spawnNext(
  [
    mode,
    "--port",
    String(env.PORT),
    "--hostname",
    process.env.HOSTNAME ?? "0.0.0.0",
    "--keepAliveTimeout",
    "65000",
  ],
  { env: childEnv, stdio: "inherit" },
);
let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  next.kill("SIGTERM");
  await new Promise((resolve) => (next.exitCode === null ? next.once("exit", resolve) : resolve(null)));
  await getPrisma().$disconnect();
  await db.stop();
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
next.on("exit", (code) => void shutdown(code ?? 1));
