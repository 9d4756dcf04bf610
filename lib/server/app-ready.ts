// When the launcher may say "Receipt is ready at …": once GET /api/health answers 200 (the app serves and reaches its
// database), not when the process spawns — the first start builds for minutes, and Next.js names its address as soon
// as it listens.

const WILDCARD_HOSTS = new Set(["", "0.0.0.0", "::", "[::]"]);

/** The address a person opens (`shown`) and the one the launcher asks (`probe`), for the app on hostname:port. */
export function appAddress(hostname: string | undefined, port: number): { shown: string; probe: string } {
  const host = hostname?.trim() ?? "";
  if (WILDCARD_HOSTS.has(host)) {
    const loopback = host.includes(":") ? "[::1]" : "127.0.0.1";
    return { shown: `http://localhost:${port}`, probe: `http://${loopback}:${port}` };
  }
  const literal = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const url = `http://${literal}:${port}`;
  return { shown: url, probe: url };
}

/**
 * Resolves true once `${baseUrl}/api/health` answers 200; false as soon as `stopped()` says the launcher is stopping
 * (the app died or was asked to stop) first. A 503 (database unreachable) or no answer yet keeps it waiting.
 */
export async function waitUntilHealthy(
  baseUrl: string,
  options: { stopped: () => boolean; everyMs?: number; requestTimeoutMs?: number },
): Promise<boolean> {
  const { stopped, everyMs = 250, requestTimeoutMs = 2_000 } = options;
  while (!stopped()) {
    try {
      const response = await fetch(`${baseUrl}/api/health`, {
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      await response.body?.cancel();
      if (response.status === 200) return !stopped();
    } catch {
      // not listening yet, or too slow to answer: ask again
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return false;
}
