/**
 * The floor of any Node sender on this machine: a bare undici client (the HTTP client Receipt's engine uses, and the
 * cheapest a POST here) in its own process (keep-alive, no database, no signing, nothing to decide) POSTs as many
 * webhooks of Receipt's size to the same receiver, as many in flight as Receipt sends to one target. Receipt's delivery
 * engine cannot send faster than this, nor with less CPU a POST.
 */
import { spawn } from "node:child_process";
import type { BenchReceiver } from "./receiver";

export const FLOOR_SOURCE = "floor";

// Runs in the child: POSTs argv[1] bodies of about argv[2] bytes to argv[0] with argv[3] in flight; prints its CPU.
const SENDER = `
const { Agent } = require("undici");
const [url, count, bytes, inFlight] = [process.argv[1], ...process.argv.slice(2).map(Number)];
const agent = new Agent();
const target = new URL(url);
const padding = "x".repeat(Math.max(0, bytes - 120));
let next = 0;
const post = async (i) => {
  const body = JSON.stringify({ version: "receipt.alerts.v1", alerts: [{ chainId: "chain:floor-" + i }], padding });
  const response = await agent.request({ origin: target.origin, path: target.pathname + target.search,
    method: "POST", headers: { "content-type": "application/json" }, body });
  await response.body.dump();
};
const lane = async () => { while (next < count) await post(next++); };
// Warmed up first, as Receipt's engine is by the bench's earlier runs: undici is compiled on first use.
const warmUp = async (lane) => { for (let i = 0; i < 100; i++) await post("warm-" + lane + "-" + i); };
const main = async () => {
  await Promise.all(Array.from({ length: inFlight }, (_, i) => warmUp(i)));
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ seconds, cpuUs: (used.user + used.system) / count }));
  process.exit(0);
};
main().catch((error) => { console.error(error); process.exit(1); });
`;

export type SenderFloor = { perSecond: number; cpuUsAPost: number; inFlight: number; bytes: number };

/** Sends `count` webhooks of `bytes` with `inFlight` lanes; the rate counts from the first POST to the last answer. */
export async function measureSenderFloor(
  receiver: BenchReceiver,
  count: number,
  bytes: number,
  inFlight: number,
): Promise<SenderFloor> {
  const child = spawn(
    process.execPath,
    ["-e", SENDER, receiver.url(FLOOR_SOURCE), String(count), String(bytes), String(inFlight)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += String(chunk);
  });
  const exitCode = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (exitCode !== 0) throw new Error(`the bare sender exited with ${exitCode}`);
  const ids = Array.from({ length: count }, (_, i) => `chain:floor-${i}`);
  const seen = await receiver.waitForAll(FLOOR_SOURCE, ids, 10_000);
  if (seen.size < count)
    throw new Error(`the receiver got ${seen.size} of the bare sender's ${count} webhooks`);
  const { seconds, cpuUs } = JSON.parse(output) as { seconds: number; cpuUs: number };
  return { perSecond: count / seconds, cpuUsAPost: cpuUs, inFlight, bytes };
}
