-- The label set rollup (lib/server/db/chain-rollups.ts, chain-list-totals.ts): chains per label set (the hash of
-- chains_label_set_observed_at_idx) and the label rollup's other dimensions. A chain list filtered by two labels or
-- more and by state, server, tool or client read chains by one filter's index and tested the rest on every row
-- (11 s for a server with a label pair it never has, at 10 M chains). Summed over the sets that hold the labels, it
-- answers such totals and bounds their pages as the label rollup does one label.
CREATE TABLE "chain_label_set_rollups" (
    "label_set" BIGINT NOT NULL,
    "state" TEXT NOT NULL,
    "shadowed_state" TEXT NOT NULL,
    "server_name" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "client_name" TEXT NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "chains" INTEGER NOT NULL,

    CONSTRAINT "chain_label_set_rollups_pkey" PRIMARY KEY ("label_set", "state", "shadowed_state", "server_name", "tool", "client_name", "bucket") INCLUDE ("chains")
);

CREATE INDEX "chain_label_set_rollups_emptied_idx" ON "chain_label_set_rollups" ("bucket") WHERE "chains" = 0;

-- Counted from chains as they are now less the deltas not folded yet: the fold adds those to this rollup too
INSERT INTO "chain_label_set_rollups" ("label_set", "state", "shadowed_state", "server_name", "tool", "client_name", "bucket", "chains")
SELECT label_set, state, shadowed_state, server_name, tool, client_name, bucket, sum(chains)::int
FROM (
    SELECT hashtextextended(c.labels::text, 0) AS label_set, c.state, coalesce(c.shadowed_state, '') AS shadowed_state,
        coalesce(c.server_name, '') AS server_name, coalesce(c.tool, '') AS tool, c.client_name,
        date_bin('1 hour', c.observed_at, 'epoch'::timestamptz) AS bucket, 1 AS chains
    FROM "chains" c
    UNION ALL
    SELECT hashtextextended(d.labels::text, 0), d.state, d.shadowed_state, d.server_name, d.tool, d.client_name,
        d.bucket, -d.chains
    FROM "chain_rollup_deltas" d WHERE d.chains <> 0
) counted
GROUP BY 1, 2, 3, 4, 5, 6, 7
HAVING sum(chains) <> 0;
