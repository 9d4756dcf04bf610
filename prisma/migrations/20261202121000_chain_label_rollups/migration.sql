-- The label rollup (lib/server/db/chain-rollups.ts, chain-list-totals.ts): the capped total of a chain list filtered
-- by a label was counted from chains through the GIN index and the heap, up to ten thousand rows. Deltas now carry
-- the labels of the chains they count, and the fold adds each (key, value) pair to chain_label_rollups.
-- Deltas appended before this migration carry no labels: the backfill below counts chains as they are now, which
-- already holds every change those deltas describe, so folding them later adds nothing to the label rollup
ALTER TABLE "chain_rollup_deltas" ADD COLUMN "labels" JSONB NOT NULL DEFAULT '{}';

CREATE TABLE "chain_label_rollups" (
    "label_key" TEXT NOT NULL,
    "label_value" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "shadowed_state" TEXT NOT NULL,
    "server_name" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "client_name" TEXT NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "chains" INTEGER NOT NULL,

    CONSTRAINT "chain_label_rollups_pkey" PRIMARY KEY ("label_key", "label_value", "state", "shadowed_state", "server_name", "tool", "client_name", "bucket") INCLUDE ("chains")
);

-- One set-based pass over chains (each chain once a label), grouped before it is written
INSERT INTO "chain_label_rollups" ("label_key", "label_value", "state", "shadowed_state", "server_name", "tool", "client_name", "bucket", "chains")
SELECT l.key, l.value, c.state, coalesce(c.shadowed_state, ''), coalesce(c.server_name, ''), coalesce(c.tool, ''),
    c.client_name, date_bin('1 hour', c.observed_at, 'epoch'::timestamptz), count(*)::int
FROM "chains" c CROSS JOIN LATERAL jsonb_each_text(c.labels) l
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
