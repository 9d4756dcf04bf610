// Applies prisma/migrations offline (same bookkeeping as `prisma migrate deploy`) to DATABASE_URL or the embedded database.
import { openDatabase } from "../lib/server/db/connection-string";
import { applyMigrations } from "../lib/server/db/migrate";

const db = await openDatabase();
try {
  const applied = await applyMigrations(db.url);
  console.error(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
} finally {
  await db.stop();
}
