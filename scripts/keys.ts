// npm run --silent keys -- create --name NAME [--scope ingest|read|admin]...     → prints the new key alone on stdout
// npm run --silent keys -- list                                                  → one key per line (never the key)
// npm run --silent keys -- revoke NAME
// On the app's database (scripts/cli-database.ts). Exit 0 done, 1 refused (bad input, name taken, no such key), 2 no
// Receipt database where it looked.
import { openCliDatabase } from "./cli-database";
import { KeyNameTakenError } from "../lib/server/db/ingestion-keys";
import { createKey, listIngestionKeys, revokeIngestionKey } from "../lib/server/keys/key-service";
import { type Scope, SCOPES, ZKeyName, ZScope } from "../lib/auth/key-scopes";

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const [command, ...rest] = process.argv.slice(2);
function option(name: string): string[] {
  const values: string[] = [];
  rest.forEach((arg, i) => {
    if (arg === `--${name}` && rest[i + 1]) values.push(rest[i + 1] as string);
    else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3));
  });
  return values;
}

const db = await openCliDatabase();
try {
  if (command === "create") {
    const name = ZKeyName.safeParse(option("name")[0]);
    if (!name.success) fail(`--name: ${name.error.issues[0]?.message ?? "required"}`);
    const scopeArgs = option("scope").flatMap((s) => s.split(","));
    const scopes = scopeArgs.length
      ? scopeArgs.map((s) => ZScope.safeParse(s))
      : [ZScope.safeParse("ingest")];
    const bad = scopes.find((s) => !s.success);
    if (bad) fail(`--scope must be one of ${SCOPES.map((scope) => `'${scope}'`).join(", ")}`);
    const created = await createKey(name.data, scopes.map((s) => s.data) as Scope[]).catch((error) => {
      if (error instanceof KeyNameTakenError) fail(`a key named '${name.data}' already exists`);
      throw error;
    });
    process.stdout.write(`${created.key}\n`);
  } else if (command === "list") {
    for (const key of await listIngestionKeys()) {
      const status = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : "active";
      const used = key.lastUsedAt ? key.lastUsedAt.toISOString() : "never";
      console.log(`${key.name}\t${key.prefix}…\t${key.scopes.join(",")}\t${status}\tlast used ${used}`);
    }
  } else if (command === "revoke") {
    const name = rest[0];
    if (!name) fail("usage: keys -- revoke NAME");
    if (!(await revokeIngestionKey(name))) fail(`no active key named '${name}'`);
    console.error(`revoked ${name}`);
  } else {
    fail(
      "usage: npm run --silent keys -- create --name NAME [--scope ingest|read|admin]... | list | revoke NAME",
    );
  }
} finally {
  const { getPrisma } = await import("../lib/server/db/client");
  await getPrisma().$disconnect();
  await db.stop();
}
