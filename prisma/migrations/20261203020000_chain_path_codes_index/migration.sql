-- Chains by the codes of their path (contract §3: request.cancelled, request.deadline_exceeded and the rest). They
-- follow the deciding reason in reasons, so only chains with two reasons or more hold one, and the rollups count
-- deciding reasons only: a chain list filtered by a path code walked the time index past every chain (10 s at 10 M
-- chains for a code no chain has) and counted its total on up to every row. lib/server/db/chain-list.ts reads them
-- through these two partial indexes, which chains without a path code are not written to.
-- Chains with one path code, their second reason: by it, state and time, so that a read names a state and walks one
-- range in order (a state with few of a code's chains, filtered on a range of the code by time, walked all of them:
-- 35 s at 10 M chains by the time index, ~1 s by a bitmap). The reasons and the shadowed state ride along so that a
-- page's ids and a total need no heap row (a GIN index cannot count alone: 370 ms for a common code).
CREATE INDEX IF NOT EXISTS "chains_path_code_state_observed_at_idx" ON "chains" (("reasons"[2]), "state", "observed_at" DESC, "chain_id" DESC) INCLUDE ("reasons", "shadowed_state") WHERE cardinality("reasons") = 2;
-- Chains with several path codes (few): by any of their reasons.
CREATE INDEX IF NOT EXISTS "chains_path_codes_idx" ON "chains" USING GIN ("reasons") WHERE cardinality("reasons") > 2;
-- How many reasons chains have and their second: without statistics on these expressions the planner took 1.5 %
-- of the chains for several path codes and walked the time index past all of them for a page of none,
-- and a common code for a rare one (a bitmap of all its chains, 5 s, where the time index finds a page in 26 ms).
CREATE STATISTICS IF NOT EXISTS "chains_reasons_stats" ON (cardinality("reasons")), ("reasons"[2]) FROM "chains";
ANALYZE "chains";
