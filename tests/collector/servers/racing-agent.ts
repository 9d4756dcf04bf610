// One of the agent processes of the guard race (issue 40 §4): it pays every key of KEYS through its own ledger
// server (LEDGER_DATABASE_URL, table race_ledger, which has no unique key) with the retry guard on, in its own
// shuffled order. The guard's answer decides: proceed writes, already_committed means another agent did it, and
// in_progress puts the key back for later. It prints one JSON line: the keys it wrote and how the guard answered.
import { resolve } from "node:path";
import {
  createCollector,
  OperationAlreadyCommittedError,
  OperationInProgressError,
  ReceiptSink,
} from "@/packages/collector/src";
import { stdio } from "@/tests/collector/helpers";

const name = process.env.AGENT_NAME ?? "agent";
const keys = (process.env.KEYS ?? "").split(",").filter(Boolean);
let seed = Number(process.env.SEED ?? "1");
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
for (let i = keys.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [keys[i], keys[j]] = [keys[j] as string, keys[i] as string];
}

const baseUrl = process.env.RECEIPT_URL ?? "";
const ingestionKey = process.env.RECEIPT_KEY ?? "";
const collector = createCollector({
  sink: new ReceiptSink({ baseUrl, ingestionKey, flushIntervalMs: 0 }),
  clientInfo: { name, version: "1.0.0" },
  heartbeatMs: 0,
  operationGuard: { baseUrl, ingestionKey, holder: name, whenUnreachable: "refuse" },
});
const ledger = await collector.connect(
  stdio(process.execPath, ["--import", "tsx", resolve("tests/collector/servers/ledger-server.ts")], {
    LEDGER_DATABASE_URL: process.env.LEDGER_DATABASE_URL ?? "",
    LEDGER_TABLE: "race_ledger",
  }),
);

const answers = { wrote: [] as string[], alreadyCommitted: 0, inProgress: 0 };
const queue = [...keys];
while (queue.length > 0) {
  const key = queue.shift() as string;
  try {
    await collector.callTool(ledger, {
      chainId: `race:${key}:${name}`,
      name: "record_payment",
      arguments: { key, amount: 1, mode: "ok" },
      sideEffect: "write",
      operationKey: key,
      deadlineMs: 10_000,
    });
    answers.wrote.push(key);
    // The record consumes the lease: until it arrives the others are told to wait, then that it is committed.
    await collector.flush();
  } catch (error) {
    if (error instanceof OperationAlreadyCommittedError) answers.alreadyCommitted++;
    else if (error instanceof OperationInProgressError) {
      answers.inProgress++;
      queue.push(key);
      await new Promise((done) => setTimeout(done, 10));
    } else throw error;
  }
}
await ledger.close();
await collector.flush();
console.log(JSON.stringify(answers));
