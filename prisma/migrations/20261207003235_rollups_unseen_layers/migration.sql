-- Contract v1.2's layers not seen, in the chain rollups' key as a bit mask (lib/server/db/chain-rollup-sql.ts UNSEEN:
-- 1 the handshake, 2 the catalog not observed, anywhere among the reasons, 4 a chain decided by one of the two with
-- an LLM judge's receipt on its path). The coverage report counted these per server and tool from `chains` (through
-- chains_unseen_layers_observed_at_idx), 150 ms at 10 M chains, and from the rollups they are summed with the rest.
-- AlterTable
ALTER TABLE "chain_rollups" DROP CONSTRAINT "chain_rollups_pkey",
ADD COLUMN     "unseen" SMALLINT NOT NULL DEFAULT 0,
ADD CONSTRAINT "chain_rollups_pkey" PRIMARY KEY ("bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak", "unseen");

-- AlterTable
ALTER TABLE "chain_rollup_deltas" ADD COLUMN     "unseen" SMALLINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "chain_rollups_daily" DROP CONSTRAINT "chain_rollups_daily_pkey",
ADD COLUMN     "unseen" SMALLINT NOT NULL DEFAULT 0,
ADD CONSTRAINT "chain_rollups_daily_pkey" PRIMARY KEY ("bucket", "state", "server_name", "tool", "reason", "weak", "unseen");

-- Readers see the new column (appended, so the views keep their columns and their dependants)
CREATE OR REPLACE VIEW "chain_rollups_live" AS
SELECT "bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak",
    sum("chains")::int AS "chains", min("first_observed_at") AS "first_observed_at",
    max("last_observed_at") AS "last_observed_at", max("last_written_at") AS "last_written_at", "unseen"
FROM (
    SELECT "bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak", "unseen",
        "chains", "first_observed_at", "last_observed_at", "last_written_at"
    FROM "chain_rollups"
    UNION ALL
    SELECT "bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak", "unseen",
        "chains", "first_observed_at", "last_observed_at", "last_written_at"
    FROM "chain_rollup_deltas"
) AS "r"
GROUP BY "bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak", "unseen";

CREATE OR REPLACE VIEW "chain_rollup_rows" AS
SELECT "bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak", "chains",
    "first_observed_at", "last_observed_at", "last_written_at", "unseen"
FROM "chain_rollups"
UNION ALL
SELECT "bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak", "chains",
    "first_observed_at", "last_observed_at", "last_written_at", "unseen"
FROM "chain_rollup_deltas";

CREATE OR REPLACE VIEW "chain_rollup_day_rows" AS
SELECT "bucket", "state", "server_name", "tool", "reason", "weak", "chains", "first_observed_at",
    "last_observed_at", "last_written_at", "unseen"
FROM "chain_rollups_daily"
UNION ALL
SELECT date_bin('1 day', "bucket", 'epoch'::timestamptz), "state", "server_name", "tool", "reason", "weak",
    "chains", "first_observed_at", "last_observed_at", "last_written_at", "unseen"
FROM "chain_rollup_deltas";

-- The chains stored with a layer not seen move to their key's `unseen` row: as deltas (−n from unseen 0, +n to
-- theirs), which the `rollups` job folds like any other and readers add meanwhile, so deltas still waiting from
-- before this migration stay right. Found through the partial index that holds those chains alone.
INSERT INTO "chain_rollup_deltas" ("bucket", "state", "shadowed_state", "server_name", "tool", "client_name",
    "reason", "weak", "unseen", "chains", "first_observed_at", "last_observed_at", "last_written_at", "labels")
SELECT k."bucket", k."state", k."shadowed_state", k."server_name", k."tool", k."client_name", k."reason", k."weak",
    m."unseen", m."chains", m."first_observed_at", m."last_observed_at", m."last_written_at", '{}'::jsonb
FROM (
    SELECT date_bin('1 hour', c."observed_at", 'epoch'::timestamptz) AS "bucket", c."state",
        coalesce(c."shadowed_state", '') AS "shadowed_state", coalesce(c."server_name", '') AS "server_name",
        coalesce(c."tool", '') AS "tool", c."client_name", coalesce(c."reasons"[1], '') AS "reason",
        coalesce(c."evidence" = 'weak', false) AS "weak",
        ((CASE WHEN 'session.not_observed' = any(c."reasons") THEN 1 ELSE 0 END)
            | (CASE WHEN 'catalog.not_observed' = any(c."reasons") THEN 2 ELSE 0 END)
            | (CASE WHEN c."reasons"[1] IN ('session.not_observed', 'catalog.not_observed')
                AND 'outcome.weak_evidence' = any(c."reasons") THEN 4 ELSE 0 END))::smallint AS "unseen",
        count(*)::int AS "n", min(c."observed_at") AS "first_at", max(c."observed_at") AS "last_at",
        max(c."updated_at") AS "written_at"
    FROM "chains" c
    WHERE c."reasons" && ARRAY['session.not_observed', 'catalog.not_observed']::text[]
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
) k
CROSS JOIN LATERAL (VALUES
    (0::smallint, -k."n", NULL::timestamptz, NULL::timestamptz, NULL::timestamptz),
    (k."unseen", k."n", k."first_at", k."last_at", k."written_at")
) AS m("unseen", "chains", "first_observed_at", "last_observed_at", "last_written_at");
