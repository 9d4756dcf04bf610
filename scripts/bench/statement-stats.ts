/**
 * Where PostgreSQL's time goes, statement by statement, for the benches (issue 42: "per-statement PostgreSQL CPU for
 * one record and one delivery"): pg_stat_statements, preloaded in the bench's throwaway cluster, planning tracked too.
 * Its times are the backends' wall time in each statement, which on these two busy cores is mostly CPU; a commit's
 * includes its WAL flush.
 */
import pg from "pg";

/** The cluster settings that load it (startEmbeddedPostgres's `settings`). */
export const STATEMENT_STATS_SETTINGS = [
  "shared_preload_libraries=pg_stat_statements",
  "pg_stat_statements.track_planning=on",
  "pg_stat_statements.max=1000",
];

export type StatementCost = { statement: string; calls: number; execMs: number; planMs: number };

export type StatementStats = {
  reset: () => Promise<void>;
  /** The `limit` statements of `database` that took longest since the last reset (execution plus planning). */
  top: (limit: number) => Promise<StatementCost[]>;
  close: () => Promise<void>;
};

/** Connects to `url` (the bench's database), creates the extension there and returns its reads. */
export async function statementStats(url: string): Promise<StatementStats> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("create extension if not exists pg_stat_statements");
  return {
    reset: async () => {
      await client.query("select pg_stat_statements_reset()");
    },
    top: async (limit) => {
      const { rows } = await client.query<{ query: string; calls: string; exec: number; plan: number }>(
        `select query, calls, total_exec_time as exec, total_plan_time as plan from pg_stat_statements
          where dbid = (select oid from pg_database where datname = current_database())
            and query not like '%pg_stat_statements%'
          order by total_exec_time + total_plan_time desc limit $1`,
        [limit],
      );
      return rows.map((row) => ({
        statement: row.query.replace(/\s+/g, " ").trim(),
        calls: Number(row.calls),
        execMs: row.exec,
        planMs: row.plan,
      }));
    },
    close: () => client.end(),
  };
}

/** A table of `costs` per `unit` (an alert, a record): µs of execution and planning, calls, the statement's start. */
export function statementTable(costs: StatementCost[], units: number, unit: string): string {
  const perUnit = (ms: number) => ((ms * 1000) / units).toFixed(0);
  const lines = [`| µs a ${unit} (exec + plan) | calls a ${unit} | statement |`, "|---:|---:|---|"];
  for (const cost of costs)
    lines.push(
      `| ${perUnit(cost.execMs)} + ${perUnit(cost.planMs)} | ${(cost.calls / units).toFixed(2)} | \`${cost.statement
        .slice(0, 90)
        .replace(/\|/g, "\\|")}\` |`,
    );
  const total = costs.reduce((sum, cost) => sum + cost.execMs + cost.planMs, 0);
  lines.push(`| ${perUnit(total)} in all | | (these ${costs.length} statements) |`);
  return lines.join("\n");
}
