import { type ChildProcess, spawnSync } from "node:child_process";
import type { Scope } from "@/lib/auth/key-scopes";
import { existsSync } from "node:fs";
import path from "node:path";
import { spawnNext } from "@/lib/server/next-server";
import { portOutsideEphemeralRange } from "./ports";

const root = path.resolve(import.meta.dirname, "../..");

export type RunningApp = {
  baseUrl: string;
  /** Everything the app printed, to prove what it did not log. */
  output: () => string;
  stop: () => Promise<void>;
  process: ChildProcess;
};

/** The ranges the test harness opens to outbound sends (its receivers are local). */
export const LOOPBACK_RECEIVERS = "127.0.0.0/8,::1";

/**
 * Starts the production build (`next start`) on a free port against `databaseUrl`: the tests speak real HTTP to
 * the real server. `npm test` builds first; run `npm run build` before running integration tests alone.
 */
export function startApp(
  databaseUrl: string,
  env: Record<string, string> = {},
  /** How long the app may take to answer /api/health: longer for tests that start several on a busy machine. */
  healthyWithinMs = 30_000,
  /** Where the app's port comes from (its own test hands out a port that is taken). */
  pickPort: () => Promise<number> = portOutsideEphemeralRange,
): Promise<RunningApp> {
  return startAppIn(root, databaseUrl, env, healthyWithinMs, pickPort);
}

/** startApp for the production build of another checkout in `dir` (bench:ingest's baseline build). */
export async function startAppIn(
  dir: string,
  databaseUrl: string,
  env: Record<string, string> = {},
  healthyWithinMs = 30_000,
  pickPort: () => Promise<number> = portOutsideEphemeralRange,
): Promise<RunningApp> {
  if (!existsSync(path.join(dir, ".next/BUILD_ID")))
    throw new Error(`no production build in ${dir}: run \`npm run build\``);
  // A port is free when it is picked, not when the app binds it: another process may bind it meanwhile (rarely, as
  // the kernel never hands it out: ports.ts). The loser exits with EADDRINUSE, and it starts again on another port.
  for (let attempt = 1; ; attempt++) {
    const port = await pickPort();
    const started = await startOnPort(dir, databaseUrl, env, healthyWithinMs, port);
    if (started !== "port_taken") return started;
    // Said, so a run's log shows how often it happens.
    console.warn(`test app: port ${port} was taken before the app bound it; starting again on another`);
    if (attempt === 5) throw new Error("app could not bind a free port in 5 attempts");
  }
}

/** What the app server (scripts/app-server.ts) and `next start` print once they listen. */
const LISTENING = /receipt app server\) on http:|Ready in /;

async function startOnPort(
  dir: string,
  databaseUrl: string,
  env: Record<string, string>,
  healthyWithinMs: number,
  port: number,
): Promise<RunningApp | "port_taken"> {
  let output = "";
  const child = spawnNext(
    [
      "start",
      "--port",
      String(port),
      "--hostname",
      "127.0.0.1",
      // Longer than clients keep idle sockets, so a reused keep-alive connection is never closed under a request.
      "--keepAliveTimeout",
      "70000",
    ],
    {
      // Test records carry fixed dates: retention would prune them as the calendar moves on, so only the
      // retention tests switch it on.
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        NEXT_TELEMETRY_DISABLED: "1",
        RECEIPT_RETENTION: "0",
        // The tests' receivers listen on 127.0.0.1; the outbound policy's own tests set this to "".
        RECEIPT_OUTBOUND_ALLOW: LOOPBACK_RECEIVERS,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
    dir,
  );
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + healthyWithinMs;
  for (;;) {
    if (child.exitCode !== null) {
      if (output.includes("EADDRINUSE")) return "port_taken";
      throw new Error(`app exited early:\n${output}`);
    }
    // Healthy only once this child says it listens: until then an answer on the port may be another file's app.
    try {
      if (LISTENING.test(output) && (await fetch(`${baseUrl}/api/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill("SIGKILL"); // never left running, its workers ticking, after the test gave up on it
      throw new Error(`app did not become healthy:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    output: () => output,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      // next start's graceful stop waits for open connections; one holding a response the test never read kept it
      // waiting about a minute. Committed work is durable either way (crash-recovery.test.ts kills on purpose).
      let timer: NodeJS.Timeout | undefined;
      const graceful = await Promise.race([
        exited.then(() => true),
        new Promise((resolve) => {
          timer = setTimeout(resolve, 10_000, false);
        }),
      ]);
      clearTimeout(timer);
      if (!graceful) {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}

// `npm run keys` without npm's and npx's start-up time: the same script under the same TypeScript loader.
const TSX = ["--import", "tsx"];

/** Creates an ingestion key through the real CLI, as a user would, and returns the key it printed. */
/**
 * A key created by the keys service itself (as `npm run keys -- create` does, audited as `system`) on `databaseUrl`,
 * in this process: the CLI's own behaviour has its tests (keys-cli, audit), and spawning it costs seconds of CPU.
 */
export async function createTestKey(
  databaseUrl: string,
  name: string,
  scopes: Scope[] = ["ingest"],
): Promise<string> {
  // Imported here: most files that start an app never load Prisma themselves.
  const [{ createPrismaClient }, { createKey }, { SYSTEM_ACTOR }] = await Promise.all([
    import("@/lib/server/db/client"),
    import("@/lib/server/keys/key-service"),
    import("@/lib/server/audit/audit-actor"),
  ]);
  const prisma = createPrismaClient(databaseUrl);
  try {
    return (await createKey(name, scopes, SYSTEM_ACTOR, prisma)).key;
  } finally {
    await prisma.$disconnect();
  }
}

export function createKeyWithCli(databaseUrl: string, name: string, scopes: string[] = []): string {
  const args = [
    ...TSX,
    "scripts/keys.ts",
    "create",
    "--name",
    name,
    ...scopes.flatMap((s) => ["--scope", s]),
  ];
  const result = spawnSync(process.execPath, args, {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`keys create failed: ${result.stderr}`);
  return result.stdout.trim();
}

export function runKeysCli(databaseUrl: string, args: string[]) {
  return spawnSync(process.execPath, [...TSX, "scripts/keys.ts", ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
}

/** A tiny client for the API under test. */
export function apiClient(baseUrl: string, key?: string) {
  const headers = (extra: Record<string, string> = {}) => ({
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...extra,
  });
  return {
    post: (records: unknown[]) =>
      fetch(`${baseUrl}/api/v1/records`, {
        method: "POST",
        headers: headers({ "content-type": "application/json" }),
        body: JSON.stringify({ records }),
      }),
    postRaw: (body: string | Buffer, contentType: string) =>
      fetch(`${baseUrl}/api/v1/records`, {
        method: "POST",
        headers: headers({ "content-type": contentType }),
        body: typeof body === "string" ? body : new Uint8Array(body),
      }),
    get: (pathAndQuery: string) => fetch(`${baseUrl}${pathAndQuery}`, { headers: headers() }),
  };
}
