// Applies prisma/migrations offline (same bookkeeping as `prisma migrate deploy`) to DATABASE_URL or the embedded database,
// then the data steps code must do (re-keying notification groups to stable route ids: lib/server/routing/rekey-groups.ts).
import { rekeyLegacyGroups } from "../lib/server/routing/rekey-groups";
import { getPrisma } from "../lib/server/db/client";
import { cannotReach, openDatabase } from "../lib/server/db/connection-string";
import { applyMigrations } from "../lib/server/db/migrate";
import { UnsupportedServerVersionError } from "../lib/server/db/server-version";

const db = await openDatabase({ create: true });
try {
  const applied = await applyMigrations(db.url);
  console.error(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
  process.env.DATABASE_URL = db.url;
  const rekeyed = await rekeyLegacyGroups();
  if (rekeyed > 0) console.error(`re-keyed ${rekeyed} notification groups to stable route ids`);
  await getPrisma().$disconnect();
} catch (error) {
  // The versions found and needed, or the database that could not be reached: a sentence, not a stack trace.
  const refusal = error instanceof UnsupportedServerVersionError ? error : cannotReach(error);
  if (!refusal) throw error;
  console.error(refusal.message);
  await db.stop();
  process.exit(1);
} finally {
  await db.stop();
}
