import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";

// Which process started the embedded cluster, kept in a file beside its data directory. A running postmaster whose
// starter is gone (a launcher killed with SIGKILL) is an orphan: nobody watches it or stops it, so the next start
// must not quietly serve in front of it. A process is named by its pid and its start time, so that a pid the kernel
// has since handed to another process is not taken for the starter.

export type ProcessIdentity = { pid: number; startTime: string };

/** The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), or null if it is gone. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may itself contain spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** Alive and not a zombie (a dead child nobody reaped yet, as happens in containers without an init). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true; // no /proc: the signal test is all there is
  }
}

export function identityOf(pid: number): ProcessIdentity {
  return { pid, startTime: startTimeOf(pid) ?? "" };
}

function isSameProcessRunning(identity: ProcessIdentity): boolean {
  if (!isRunning(identity.pid)) return false;
  const startTime = startTimeOf(identity.pid);
  return startTime === null || identity.startTime === "" || startTime === identity.startTime;
}

const ownerFile = (dataDir: string) => `${dataDir}.owner.json`;

export function recordOwner(dataDir: string, owner: ProcessIdentity): void {
  writeFileSync(ownerFile(dataDir), `${JSON.stringify(owner)}\n`);
}

export function forgetOwner(dataDir: string, owner: ProcessIdentity): void {
  const current = readOwner(dataDir);
  if (current?.pid === owner.pid && current.startTime === owner.startTime)
    rmSync(ownerFile(dataDir), { force: true });
}

function readOwner(dataDir: string): ProcessIdentity | null {
  if (!existsSync(ownerFile(dataDir))) return null;
  try {
    const parsed = JSON.parse(readFileSync(ownerFile(dataDir), "utf8")) as Partial<ProcessIdentity>;
    return typeof parsed.pid === "number" && typeof parsed.startTime === "string"
      ? { pid: parsed.pid, startTime: parsed.startTime }
      : null;
  } catch {
    return null;
  }
}

/** The live process that started the cluster in `dataDir`, or null when there is none (an orphan). */
export function liveOwner(dataDir: string): ProcessIdentity | null {
  const owner = readOwner(dataDir);
  return owner && isSameProcessRunning(owner) ? owner : null;
}

/**
 * Stops a postmaster: SIGINT is PostgreSQL's fast shutdown (sessions are ended, the data is checkpointed); past
 * `timeoutMs` it is killed, which PostgreSQL also survives, replaying its WAL at the next start.
 */
export async function stopPostmaster(pid: number, timeoutMs = 15_000): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {}
  };
  signal("SIGINT");
  if (await waitUntilGone(pid, timeoutMs)) return;
  signal("SIGKILL");
  await waitUntilGone(pid, 5_000);
}

/** Resolves true once `pid` is no longer running, false if it still is after `timeoutMs`. */
export async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}
