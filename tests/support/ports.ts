import { readFileSync } from "node:fs";
import net from "node:net";
import { freePort } from "@/lib/server/db/embedded";

/** Where the kernel draws bind(0)'s ports from, and so every test file's freePort(). */
function ephemeralRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
      .trim()
      .split(/\s+/)
      .map(Number);
    if (low && high) return { low, high };
  } catch {}
  return { low: 32768, high: 60999 }; // Linux's default
}

const listensOn = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

/**
 * A port free on 127.0.0.1 now that bind(0) never hands out: below the ephemeral range, so no other test's server,
 * given its port by the kernel, can take it before this one's server binds it, nor answer on a port a test keeps closed.
 * (freePort()'s port is free when it answers, and the kernel may give it to another process the next moment.) The
 * tests' apps, launchers, servers and closed ports come from here; `taken` keeps one caller's picks apart.
 */
export async function portOutsideEphemeralRange(taken = new Set<number>()): Promise<number> {
  const { low } = ephemeralRange();
  const first = Math.max(1024, Math.min(20_000, Math.floor(low / 2)));
  // A machine whose ephemeral range starts low leaves no room below it: the kernel's own choice then.
  for (let tries = 0; low - first >= 1000 && tries < 100; tries++) {
    const port = first + Math.floor(Math.random() * (low - first));
    if (taken.has(port) || !(await listensOn(port))) continue;
    taken.add(port);
    return port;
  }
  return kernelPort(taken);
}

async function kernelPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!taken.has(port)) {
      taken.add(port);
      return port;
    }
  }
}
