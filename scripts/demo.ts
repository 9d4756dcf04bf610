// `npm run demo`: real MCP sessions against the running Receipt, so a newcomer sees real chains in the
// dashboard a minute after `npm start`. The demo creates its own key (ingest + read, named demo-<time>)
// in the app's database, resolved exactly as the app resolves it, posts through the collector's
// ReceiptSink, prints each chain's state as Receipt decided it, and revokes the key when done.
// Base URL: RECEIPT_URL, else http://localhost:${PORT ?? 3000}.
import { createCollector, DeliveryError, ReceiptSink } from "../packages/collector/src";
import { openDatabase } from "../lib/server/db/connection-string";
import { createKey, revokeIngestionKey } from "../lib/server/keys/key-service";
import { everythingSessions, failingSessions, filesystemSessions } from "./demo-sessions";

const baseUrl = (process.env.RECEIPT_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(
  /\/$/,
  "",
);

function fail(message: string): never {
  console.error(`demo: ${message}`);
  process.exit(1);
}

async function appIsUp(): Promise<boolean> {
  try {
    return (await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(3_000) })).ok;
  } catch {
    return false;
  }
}

// Before touching any database: without a running app the embedded one would be started for nothing.
if (!(await appIsUp()))
  fail(
    `no Receipt answering at ${baseUrl}/api/health — start it with \`npm start\` (or set RECEIPT_URL / PORT)`,
  );

const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "");
const keyName = `demo-${stamp}`;
const db = await openDatabase();
process.env.DATABASE_URL = db.url;
const { key } = await createKey(keyName, ["ingest", "read"]);

const sink = new ReceiptSink({ baseUrl, ingestionKey: key, flushIntervalMs: 500 });
const receipt = createCollector({
  sink,
  clientInfo: { name: "receipt-demo", version: "1.0.0" },
  requiredCapabilities: { server: ["tools"] },
  labels: { env: "demo", agent: "receipt-demo", run: stamp },
  heartbeatMs: 500,
});
const chain = (name: string) => `demo-${stamp}-${name}`;

let exitCode = 0;
try {
  console.log(`demo: real MCP sessions → ${baseUrl} (key ${keyName})`);
  const chains = [
    ...(await filesystemSessions(receipt, chain)),
    ...(await everythingSessions(receipt, chain)),
    ...(await failingSessions(receipt)),
  ];
  await receipt.flush();
  console.log(`\n${"chain".padEnd(58)} ${"state".padEnd(21)} deciding reason`);
  for (const chainId of chains) {
    const response = await fetch(`${baseUrl}/api/v1/chains/${encodeURIComponent(chainId)}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const detail = response.ok
      ? ((await response.json()) as { chain: { state: string; reasons: string[] } })
      : undefined;
    const state = detail?.chain.state ?? `HTTP ${response.status}`;
    console.log(`${chainId.padEnd(58)} ${state.padEnd(21)} ${detail?.chain.reasons[0] ?? ""}`);
  }
  console.log(`\n${chains.length} chains — open ${baseUrl} to see them (label run=${stamp}).`);
} catch (error) {
  exitCode = 1;
  if (error instanceof DeliveryError && error.report.failed.some((failure) => failure.status === 401))
    console.error(
      "demo: Receipt refused the demo's key (401): the app and the demo use different databases — run the demo with the app's DATABASE_URL",
    );
  else console.error("demo:", error instanceof Error ? error.message : error);
} finally {
  await revokeIngestionKey(keyName).catch(() => undefined);
  const { getPrisma } = await import("../lib/server/db/client");
  await getPrisma().$disconnect();
  await db.stop();
}
process.exit(exitCode);
