import pg from "pg";

/**
 * The oldest PostgreSQL Receipt runs on. Its SQL uses `RETURNING old.*` (chain writes) and
 * relies on B-tree skip scans for the chain list's plans: both arrived in PostgreSQL 18. On 15 the app started and
 * then answered every batch with 500; now start and migrate refuse first, naming both versions.
 */
export const REQUIRED_SERVER_VERSION_NUM = 180000;

export class UnsupportedServerVersionError extends Error {
  constructor(readonly found: string) {
    super(
      `receipt: the database runs PostgreSQL ${found}; Receipt needs PostgreSQL ${REQUIRED_SERVER_VERSION_NUM / 10000} ` +
        "or newer (it uses RETURNING old/new and skip scans). Point DATABASE_URL at a PostgreSQL 18 server, or unset " +
        "it to use the embedded one.",
    );
    this.name = "UnsupportedServerVersionError";
  }
}

/** Throws UnsupportedServerVersionError when the server at `connectionString` is older than Receipt needs. */
export async function assertSupportedServerVersion(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ num: string; version: string }>(
      "select current_setting('server_version_num') as num, current_setting('server_version') as version",
    );
    const row = rows[0];
    if (!row || Number(row.num) < REQUIRED_SERVER_VERSION_NUM) {
      throw new UnsupportedServerVersionError(row?.version ?? "of unknown version");
    }
  } finally {
    await client.end();
  }
}
