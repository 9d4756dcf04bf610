import pg from "pg";

export type StoredAuditEvent = {
  id: string;
  actorUserId: string | null;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  // biome-ignore lint/suspicious/noExplicitAny: the tests check the JSON's shape with expect()
  before: any;
  // biome-ignore lint/suspicious/noExplicitAny: the tests check the JSON's shape with expect()
  after: any;
};

/** Reads audit_events straight from the database: what was written, independent of the read API. */
export function auditTable(databaseUrl: string) {
  const query = async <Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query<Row>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    query,
    /** The newest event id (0 when there is none): take it before an action, then read what came `after` it. */
    lastId: async () =>
      (await query<{ id: string }>("select coalesce(max(id), 0)::text as id from audit_events"))[0]?.id ??
      "0",
    after: (id: string) =>
      query<StoredAuditEvent>(
        `select id::text, actor_user_id as "actorUserId", actor, action, target_type as "targetType",
            target_id as "targetId", before, after
          from audit_events where id > $1::bigint order by id`,
        [id],
      ),
    /** Every event's before and after as text, to prove a secret never landed in the log. */
    allText: async () =>
      (
        await query<{ text: string }>(
          `select coalesce(string_agg(coalesce(before::text, '') || ' ' || coalesce(after::text, ''), ' '), '')
            as text from audit_events`,
        )
      )[0]?.text ?? "",
  };
}
