import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { isRunning } from "./db/embedded-owner";

// How `npm start` (scripts/serve.ts) keeps the app and its embedded database together: when either dies, the other
// is stopped and the launcher exits non-zero, so a supervisor (systemd, a container runtime) restarts the pair and
// alerts; nothing keeps answering in front of a dead database, and no database is left running for nobody.

/** The launcher's exit codes, documented in docs/OPERATIONS.md ("Running in production"). */
export const LAUNCHER_EXIT = {
  /** Stopped on SIGTERM, SIGINT or SIGHUP; the app and the embedded database were stopped cleanly. */
  stopped: 0,
  /** Could not start: configuration, build, migrations, or the embedded database in use by another process. */
  startFailed: 1,
  /** The app (next-server) exited or was killed. */
  appDied: 2,
  /** The embedded PostgreSQL exited or was killed. */
  databaseDied: 3,
} as const;

/** The variable through which the app learns that a launcher started it (see exitWhenOrphaned). */
export const LAUNCHER_ENV = "RECEIPT_LAUNCHED";

/** Resolves once `child` has exited, whether by its own exit code or by a signal. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** SIGTERM (the app finishes its open requests), then SIGKILL once `graceMs` has passed. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  const done = exited(child);
  child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const graceful = await Promise.race([
    done.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(resolve, graceMs, false);
    }),
  ]);
  clearTimeout(timer);
  if (!graceful) {
    child.kill("SIGKILL");
    await done;
  }
}

/** Calls `onGone` once when process `pid` (not a child of this one, so no exit event) is no longer running. */
export function watchProcess(pid: number, onGone: () => void, everyMs = 200): () => void {
  const timer = setInterval(() => {
    if (isRunning(pid)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  return () => clearInterval(timer);
}

/** The running children of `pid` whose command line contains `marker` (Linux /proc; none where it is missing). */
function childrenMatching(pid: number, marker: string): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .split(" ")
      .filter(Boolean)
      .map(Number)
      .filter((child) => isRunning(child) && readFileSync(`/proc/${child}/cmdline`, "utf8").includes(marker));
  } catch {
    return [];
  }
}

/**
 * `next dev` serves from a child process (start-server.js, titled next-server) and does not exit when a signal kills
 * that child: calls `onGone` once the child has been seen and then been missing for `graceMs` (a dev restart
 * replaces it within that time).
 */
export function watchDevServer(
  devPid: number,
  onGone: () => void,
  everyMs = 200,
  graceMs = 3_000,
): () => void {
  let seen = false;
  let missingSince: number | undefined;
  const timer = setInterval(() => {
    const serving =
      childrenMatching(devPid, "next-server").length + childrenMatching(devPid, "start-server").length > 0;
    if (serving) {
      seen = true;
      missingSince = undefined;
      return;
    }
    if (!seen) return;
    missingSince ??= Date.now();
    if (Date.now() - missingSince < graceMs) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  return () => clearInterval(timer);
}

/**
 * In the app: exit when the launcher that started it is gone (killed with SIGKILL, it cannot stop its children).
 * An orphaned app would keep answering with nobody watching its database; its parent changing is the sign.
 */
export function exitWhenOrphaned(everyMs = 500): void {
  if (process.env[LAUNCHER_ENV] !== "1") return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    console.error("receipt: the launcher that started this app is gone; exiting");
    process.exit(LAUNCHER_EXIT.appDied);
  }, everyMs);
  timer.unref();
}
