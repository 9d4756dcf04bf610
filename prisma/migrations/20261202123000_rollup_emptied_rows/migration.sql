-- Retention deletes rollup rows left holding no chain once their bucket is past the cutoff
-- (lib/server/db/chain-rollups.ts deleteEmptiedRollupRows). These partial indexes hold only such rows, so a
-- retention step finds them without reading the rows that still count chains. Built from the rollup rows, not chains
CREATE INDEX "chain_rollups_emptied_idx" ON "chain_rollups" ("bucket") WHERE "chains" = 0;
CREATE INDEX "chain_state_rollups_emptied_idx" ON "chain_state_rollups" ("bucket") WHERE "chains" = 0;
CREATE INDEX "chain_label_rollups_emptied_idx" ON "chain_label_rollups" ("bucket") WHERE "chains" = 0;
CREATE INDEX "chain_rollups_daily_emptied_idx" ON "chain_rollups_daily" ("bucket") WHERE "chains" = 0;
CREATE INDEX "problem_rollups_emptied_idx" ON "problem_rollups" ("bucket") WHERE "chains" = 0;
CREATE INDEX "problem_rollups_daily_emptied_idx" ON "problem_rollups_daily" ("bucket") WHERE "chains" = 0;
