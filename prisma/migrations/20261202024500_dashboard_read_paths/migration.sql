-- Distinct sessions of the problems on a page (lib/server/db/problems.ts countProblemSessions): one index-only
-- range per problem (server, tool, state, deciding reason, newest first), instead of grouping the window's chains.
-- Partial: quiet chains (healthy, working) are no problem, so their writes do not maintain it. reasons is included
-- because PostgreSQL reads an expression index index-only only when the expression's columns are in it too
CREATE INDEX "chains_problem_sessions_idx" ON "chains" ("state", "server_name", "tool", ("reasons"[1]), "observed_at" DESC)
    INCLUDE ("session_id", "reasons") WHERE "state" NOT IN ('healthy', 'working');

-- The rollup rows and the deltas not folded yet, not grouped: a reader that groups by fewer columns (coverage by
-- server and tool, problems by tuple and bucket) sums them itself, one pass, instead of first grouping all eight
-- key columns as chain_rollups_live does
CREATE VIEW "chain_rollup_rows" AS
SELECT "bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak", "chains",
    "first_observed_at", "last_observed_at", "last_written_at"
FROM "chain_rollups"
UNION ALL
SELECT "bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak", "chains",
    "first_observed_at", "last_observed_at", "last_written_at"
FROM "chain_rollup_deltas";
