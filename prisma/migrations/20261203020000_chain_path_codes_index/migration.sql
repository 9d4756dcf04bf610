-- Chains by the codes of their path (contract §3: request.cancelled, request.deadline_exceeded and the rest, which
-- follow the deciding reason in reasons and so only in chains with more than one). The rollups count deciding reasons
-- only: a chain list filtered by a path code walked the time index past every chain, all 10 M for a code no chain
-- has (10 s). Partial, so only the chains with a path code are written to it (16 % of the benchmark's).
-- Not in schema.prisma, which cannot express a partial index.
CREATE INDEX IF NOT EXISTS "chains_path_codes_idx" ON "chains" USING GIN ("reasons") WHERE cardinality("reasons") > 1;
