// npm run --silent set-aside -- list                 → one item per line: job, item, since, reason
// npm run --silent set-aside -- retry [JOB [ITEM]]   → the items are taken up again by their job on its next run
import { openCliDatabase } from "./cli-database";

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const [command, job, key] = process.argv.slice(2);
const db = await openCliDatabase();
try {
  const { listSetAside, retrySetAside } = await import("../lib/server/db/set-aside");
  if (command === "list") {
    for (const item of await listSetAside())
      console.log(`${item.job}\t${item.itemKey}\t${item.setAsideAt.toISOString()}\t${item.reason}`);
  } else if (command === "retry") {
    const released = await retrySetAside({ ...(job ? { job } : {}), ...(key ? { key } : {}) });
    console.error(`released ${released} item(s)`);
  } else {
    fail("usage: npm run --silent set-aside -- list | retry [JOB [ITEM]]");
  }
} finally {
  const { getPool } = await import("../lib/server/db/client");
  await getPool().end();
  await db.stop();
}
