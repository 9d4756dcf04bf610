import { getPrisma } from "./db/client";

export type HealthReport = { status: "ok"; database: "ok" } | { status: "degraded"; database: "unreachable" };

/** Healthy only when a query against PostgreSQL really succeeded within the time limit. */
export async function checkHealth(timeoutMs = 2000): Promise<HealthReport> {
  try {
    const query = getPrisma().$queryRaw`select 1 as ok`;
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("timeout")), timeoutMs),
    );
    await Promise.race([query, timeout]);
    return { status: "ok", database: "ok" };
  } catch {
    return { status: "degraded", database: "unreachable" };
  }
}
