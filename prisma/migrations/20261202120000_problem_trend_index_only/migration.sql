-- The trend of the problems on a page (lib/server/db/problem-ranking.ts readProblemTrends) reads one range of this
-- index a problem: with the chain count in it, that range is read index-only instead of fetching every rollup row
-- from the heap (a problem's week of hours is ~170 rows on as many pages). Same name and key columns, as
-- prisma/schema.prisma declares them (Prisma cannot declare INCLUDE)
DROP INDEX "problem_rollups_server_name_tool_state_reason_bucket_idx";
CREATE INDEX "problem_rollups_server_name_tool_state_reason_bucket_idx" ON "problem_rollups"("server_name", "tool", "state", "reason", "bucket") INCLUDE ("chains");
DROP INDEX "problem_rollups_daily_server_name_tool_state_reason_bucket_idx";
CREATE INDEX "problem_rollups_daily_server_name_tool_state_reason_bucket_idx" ON "problem_rollups_daily"("server_name", "tool", "state", "reason", "bucket") INCLUDE ("chains");
