import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import { isRunning } from "@/lib/server/db/embedded-owner";
import { LAUNCHER_EXIT } from "@/lib/server/launcher";

// `npm start`'s launcher (scripts/serve.ts) for real: the production build, the embedded PostgreSQL under a throwaway
// data folder, real signals. Whichever of the app and its database dies, the other is stopped and the launcher exits
// non-zero within 5 s, so a supervisor notices; a database left behind by a killed launcher is not joined quietly.
const root = path.resolve(import.meta.dirname, "../..");
const dataDir = mkdtempSync(path.join(tmpdir(), "receipt-launcher-"));
const pgDir = path.join(dataDir, "pg");
const { DATABASE_URL: _ignored, ...envWithoutDatabase } = process.env;
const started: ChildProcess[] = [];
/** A start migrates, checks the admin and starts Next.js: tens of seconds on a busy machine. */
const START_TIMEOUT_MS = 150_000;

type Launcher = {
  process: ChildProcess;
  baseUrl: string;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
};

/** The launcher itself, or through `npm start` as a supervisor would run it (npm must pass SIGTERM on to it). */
function spawnLauncher(port: number, via: "node" | "npm" = "node"): Launcher {
  const [command, args] =
    via === "npm" ? ["npm", ["start"]] : [process.execPath, ["--import", "tsx", "scripts/serve.ts", "start"]];
  const child = spawn(command, args, {
    cwd: root,
    detached: true, // its own process group, so cleanup reaches the app and PostgreSQL even when a test fails
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...envWithoutDatabase,
      RECEIPT_DATA_DIR: dataDir,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  started.push(child);
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { process: child, baseUrl: `http://127.0.0.1:${port}`, output: () => output, exit };
}

async function startLauncher(via: "node" | "npm" = "node"): Promise<Launcher> {
  const launcher = spawnLauncher(await portOutsideEphemeralRange(), via);
  const deadline = Date.now() + START_TIMEOUT_MS - 10_000;
  for (;;) {
    if (launcher.process.exitCode !== null) throw new Error(`launcher exited early:\n${launcher.output()}`);
    try {
      if ((await fetch(`${launcher.baseUrl}/api/health`)).ok) return launcher;
    } catch {}
    if (Date.now() > deadline) throw new Error(`launcher did not become healthy:\n${launcher.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

function descendsFrom(pid: number, ancestor: number): boolean {
  for (
    let current: number | null = parentOf(pid);
    current !== null && current > 1;
    current = parentOf(current)
  ) {
    if (current === ancestor) return true;
  }
  return false;
}

/** The `next-server` process the launcher started. */
function nextServerPid(launcher: Launcher): number {
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || !descendsFrom(pid, launcher.process.pid as number)) continue;
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    if (command.startsWith("next-server") || command.includes("next/dist/bin/next start")) return pid;
  }
  throw new Error("no next-server under the launcher");
}

function postmasterPid(): number {
  return Number(readFileSync(path.join(pgDir, "postmaster.pid"), "utf8").split("\n")[0]);
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; !condition(); ) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

async function portClosed(baseUrl: string): Promise<boolean> {
  try {
    await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(2000) });
    return false;
  } catch {
    return true;
  }
}

function killGroup(child: ChildProcess) {
  try {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  } catch {}
}

beforeAll(() => {
  if (!existsSync(path.join(root, ".next/BUILD_ID")))
    throw new Error("no production build: run `npm run build`");
});
afterEach(async () => {
  for (const child of started.splice(0)) killGroup(child);
  if (existsSync(path.join(pgDir, "postmaster.pid"))) {
    const pid = postmasterPid();
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
    await waitUntil(() => !isRunning(pid), 10_000);
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("the launcher (npm start)", () => {
  it(
    "kill -9 of next-server: the database is stopped and the launcher exits non-zero within 5 s",
    async () => {
      const launcher = await startLauncher();
      const app = nextServerPid(launcher);
      const database = postmasterPid();
      const killedAt = Date.now();
      process.kill(app, "SIGKILL");
      const exit = await launcher.exit;
      expect(exit).toMatchObject({ code: LAUNCHER_EXIT.appDied, signal: null });
      expect(exit.at - killedAt).toBeLessThan(5_000);
      expect(isRunning(database)).toBe(false);
      expect(existsSync(path.join(pgDir, "postmaster.pid"))).toBe(false); // a clean shutdown removes it
      expect(launcher.output()).toContain("the app exited (signal SIGKILL)");
      expect(await portClosed(launcher.baseUrl)).toBe(true);
    },
    START_TIMEOUT_MS,
  );

  it(
    "kill -9 of the embedded postmaster: the app is stopped and the launcher exits non-zero within 5 s",
    async () => {
      const launcher = await startLauncher();
      const app = nextServerPid(launcher);
      const killedAt = Date.now();
      process.kill(postmasterPid(), "SIGKILL");
      const exit = await launcher.exit;
      expect(exit).toMatchObject({ code: LAUNCHER_EXIT.databaseDied, signal: null });
      expect(exit.at - killedAt).toBeLessThan(5_000);
      expect(isRunning(app)).toBe(false);
      expect(await portClosed(launcher.baseUrl)).toBe(true);
      expect(launcher.output()).toContain("the embedded PostgreSQL");

      // The crash is recovered from by the next start, as a supervisor would do it.
      const restarted = await startLauncher();
      const restartedDatabase = postmasterPid();
      restarted.process.kill("SIGINT");
      expect((await restarted.exit).code).toBe(LAUNCHER_EXIT.stopped);
      expect(isRunning(restartedDatabase)).toBe(false);
    },
    START_TIMEOUT_MS * 2,
  );

  it(
    "SIGTERM to `npm start` stops the app and the database cleanly and exits 0",
    async () => {
      const launcher = await startLauncher("npm");
      // The address is named once /api/health answers (the launcher asks it too), the setup hint after it.
      const ready = `receipt: Receipt is ready at ${launcher.baseUrl}\n`;
      const hint = `no admin yet — open ${launcher.baseUrl}/setup`;
      // The hint is written after the address, in a later write: wait for both before reading their order.
      expect(
        await waitUntil(() => launcher.output().includes(ready) && launcher.output().includes(hint), 5_000),
      ).toBe(true);
      const output = launcher.output();
      expect(output.indexOf(hint)).toBeGreaterThan(output.indexOf(ready));
      expect(output.indexOf("receipt: using the embedded database in")).toBeLessThan(output.indexOf(ready));
      const app = nextServerPid(launcher);
      const database = postmasterPid();
      expect(existsSync(`${pgDir}.owner.json`)).toBe(true);
      launcher.process.kill("SIGTERM");
      const exit = await launcher.exit;
      expect(exit).toMatchObject({ code: LAUNCHER_EXIT.stopped, signal: null });
      expect(launcher.output()).toContain("SIGTERM received; stopping");
      expect(isRunning(app)).toBe(false);
      expect(isRunning(database)).toBe(false);
      expect(existsSync(path.join(pgDir, "postmaster.pid"))).toBe(false);
      expect(existsSync(`${pgDir}.owner.json`)).toBe(false);
    },
    START_TIMEOUT_MS,
  );

  it(
    "a database left running by a killed launcher is stopped and started afresh by the next start",
    async () => {
      const first = await startLauncher();
      const key = spawnSync(
        process.execPath,
        ["--import", "tsx", "scripts/keys.ts", "create", "--name", "kept"],
        {
          cwd: root,
          env: { ...envWithoutDatabase, RECEIPT_DATA_DIR: dataDir },
          encoding: "utf8",
        },
      );
      expect(key.status).toBe(0); // a CLI joins the launcher's database, as before
      const app = nextServerPid(first);
      const orphan = postmasterPid();
      process.kill(first.process.pid as number, "SIGKILL");
      await first.exit;
      // The app notices its launcher is gone and exits; the database cannot, and is left running.
      expect(await waitUntil(() => !isRunning(app), 5_000)).toBe(true);
      expect(isRunning(orphan)).toBe(true);

      const second = await startLauncher();
      expect(second.output()).toContain(
        `(pid ${orphan}) outlived the process that started it; restarting it`,
      );
      expect(isRunning(orphan)).toBe(false);
      expect(postmasterPid()).not.toBe(orphan);
      const list = spawnSync(process.execPath, ["--import", "tsx", "scripts/keys.ts", "list"], {
        cwd: root,
        env: { ...envWithoutDatabase, RECEIPT_DATA_DIR: dataDir },
        encoding: "utf8",
      });
      expect(list.stdout).toContain("kept"); // same data, new postmaster

      // A second launcher on the same data folder while this one runs refuses instead of sharing it.
      const rival = spawnLauncher(await portOutsideEphemeralRange());
      const rivalExit = await rival.exit;
      expect(rivalExit.code).toBe(LAUNCHER_EXIT.startFailed);
      expect(rival.output()).toContain(`is in use by process ${second.process.pid}`);
      expect((await fetch(`${second.baseUrl}/api/health`)).status).toBe(200);

      second.process.kill("SIGTERM");
      expect((await second.exit).code).toBe(LAUNCHER_EXIT.stopped);
    },
    START_TIMEOUT_MS * 3,
  );
});
