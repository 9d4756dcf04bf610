// `npm run demo`: real MCP sessions against a running Receipt, so a newcomer sees real chains in the
// dashboard a minute after `npm start`. Posts through the collector's ReceiptSink and prints each
// chain's state as Receipt decided it.
// Base URL: RECEIPT_URL, else http://localhost:${PORT ?? 3000}.
// Key: RECEIPT_KEY (ingest + read scopes; ingest alone posts but cannot read the states back). Without
// it, and only beside the app's database (a local URL, or DATABASE_URL set), the demo creates its own
// key (demo-<time>) there and revokes it when done.
import { createCollector, DeliveryError, ReceiptSink } from "../packages/collector/src";
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

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);
const besideDatabase = LOCAL_HOSTS.has(new URL(baseUrl).hostname) || Boolean(process.env.DATABASE_URL);

type DemoKey = { key: string; name: string; supplied: boolean; release: () => Promise<void> };

/** A key of the demo's own, in the app's database (resolved exactly as the app resolves it). */
async function createLocalKey(name: string): Promise<DemoKey> {
  const { openCliDatabase } = await import("./cli-database");
  const { createKey, revokeIngestionKey } = await import("../lib/server/keys/key-service");
  const db = await openCliDatabase({ announceStart: false });
  if (db.startedHere) {
    // The app answering at baseUrl cannot be running on a cluster this process had to start: a key made there
    // would only be refused.
    await db.stop();
    fail(
      `${baseUrl} answers, but no app runs on ${db.where}: run the demo with the app's RECEIPT_DATA_DIR or DATABASE_URL, or set RECEIPT_KEY`,
    );
  }
  const { key } = await createKey(name, ["ingest", "read"]);
  return {
    key,
    name,
    supplied: false,
    release: async () => {
      await revokeIngestionKey(name).catch(() => undefined);
      const { getPrisma } = await import("../lib/server/db/client");
      await getPrisma().$disconnect();
      await db.stop();
    },
  };
}

const suppliedKey = process.env.RECEIPT_KEY?.trim();
if (!suppliedKey && !besideDatabase)
  fail(
    `${baseUrl} is not this machine's Receipt: set RECEIPT_KEY to one of its keys (scopes ingest and read — \`npm run --silent keys -- create --name demo --scope ingest --scope read\` on its host)`,
  );
// Before touching any database: without a running app the embedded one would be started for nothing.
if (!(await appIsUp()))
  fail(
    `no Receipt answering at ${baseUrl}/api/health — start it with \`npm start\` (or set RECEIPT_URL / PORT)`,
  );

const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "");
const access: DemoKey = suppliedKey
  ? { key: suppliedKey, name: "RECEIPT_KEY", supplied: true, release: async () => undefined }
  : await createLocalKey(`demo-${stamp}`);
const { key, name: keyName } = access;

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
  let unreadable = 0;
  for (const chainId of chains) {
    const response = await fetch(`${baseUrl}/api/v1/chains/${encodeURIComponent(chainId)}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const detail = response.ok
      ? ((await response.json()) as { chain: { state: string; reasons: string[] } })
      : undefined;
    if (response.status === 403) unreadable += 1;
    const state = detail?.chain.state ?? `HTTP ${response.status}`;
    console.log(`${chainId.padEnd(58)} ${state.padEnd(21)} ${detail?.chain.reasons[0] ?? ""}`);
  }
  if (unreadable > 0) console.log("\n(the key has no read scope: the states are in the dashboard only)");
  console.log(`\n${chains.length} chains — open ${baseUrl} to see them (label run=${stamp}).`);
} catch (error) {
  exitCode = 1;
  if (error instanceof DeliveryError && error.report.failed.some((failure) => failure.status === 401))
    console.error(
      access.supplied
        ? "demo: Receipt refused RECEIPT_KEY (401): the key is unknown or revoked there"
        : "demo: Receipt refused the demo's key (401): the app and the demo use different databases — run the demo with the app's RECEIPT_DATA_DIR or DATABASE_URL",
    );
  else console.error("demo:", error instanceof Error ? error.message : error);
} finally {
  await access.release();
}
process.exit(exitCode);
