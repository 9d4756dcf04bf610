import { readFileSync } from "node:fs";
import net from "node:net";

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
 * A port free on 127.0.0.1 that no test file's freePort() can be handed: below the ephemeral range. Playwright's app
 * binds it seconds after it is chosen, while Vitest's files start apps on ports of their own; from the same range, the
 * two could meet, and the browser would test another file's app.
 */
export async function portOutsideEphemeralRange(taken: Set<number>): Promise<number> {
  const { low } = ephemeralRange();
  const first = Math.min(20_000, Math.floor(low / 2));
  for (;;) {
    const port = first + Math.floor(Math.random() * (low - first));
    if (taken.has(port) || !(await listensOn(port))) continue;
    taken.add(port);
    return port;
  }
}
