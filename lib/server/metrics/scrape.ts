import { readJobBacklog } from "../db/job-backlog";
import { countSetAsideByJob } from "../db/set-aside";
import { metrics } from "./registry";

/** The Prometheus text exposition of every metric, with the database-backed gauges read now. */
export async function scrapeMetrics(): Promise<{ contentType: string; body: string }> {
  const m = metrics();
  const [backlog, setAside] = await Promise.all([readJobBacklog(), countSetAsideByJob()]);
  for (const [job, seconds] of Object.entries(backlog.lagSeconds)) m.workerLag.set({ job }, seconds);
  for (const [job, count] of Object.entries(setAside)) m.setAsideItems.set({ job }, count);
  m.outboxBacklog.set(backlog.outboxEvents);
  return { contentType: m.registry.contentType, body: await m.registry.metrics() };
}
