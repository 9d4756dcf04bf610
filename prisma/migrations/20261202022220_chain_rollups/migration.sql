-- CreateTable
CREATE TABLE "chain_rollups" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "state" TEXT NOT NULL,
    "shadowed_state" TEXT NOT NULL,
    "server_name" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "client_name" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "weak" BOOLEAN NOT NULL,
    "chains" INTEGER NOT NULL,
    "first_observed_at" TIMESTAMPTZ(3),
    "last_observed_at" TIMESTAMPTZ(3),
    "last_written_at" TIMESTAMPTZ(3),

    CONSTRAINT "chain_rollups_pkey" PRIMARY KEY ("bucket","state","shadowed_state","server_name","tool","client_name","reason","weak")
);

-- CreateTable
CREATE TABLE "chain_state_rollups" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "state" TEXT NOT NULL,
    "shadowed_state" TEXT NOT NULL,
    "chains" INTEGER NOT NULL,

    CONSTRAINT "chain_state_rollups_pkey" PRIMARY KEY ("bucket","state","shadowed_state")
);

-- CreateTable
CREATE TABLE "chain_rollup_deltas" (
    "id" BIGSERIAL NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "state" TEXT NOT NULL,
    "shadowed_state" TEXT NOT NULL,
    "server_name" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "client_name" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "weak" BOOLEAN NOT NULL,
    "chains" INTEGER NOT NULL,
    "first_observed_at" TIMESTAMPTZ(3),
    "last_observed_at" TIMESTAMPTZ(3),
    "last_written_at" TIMESTAMPTZ(3),

    CONSTRAINT "chain_rollup_deltas_pkey" PRIMARY KEY ("id")
);

-- Rollups plus the deltas not folded yet: what every reader reads, so a fold never shows or hides a chain twice
CREATE VIEW "chain_rollups_live" AS
SELECT "bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak",
    sum("chains")::int AS "chains", min("first_observed_at") AS "first_observed_at",
    max("last_observed_at") AS "last_observed_at", max("last_written_at") AS "last_written_at"
FROM (
    SELECT "bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak", "chains",
        "first_observed_at", "last_observed_at", "last_written_at"
    FROM "chain_rollups"
    UNION ALL
    SELECT "bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason", "weak", "chains",
        "first_observed_at", "last_observed_at", "last_written_at"
    FROM "chain_rollup_deltas"
) AS "r"
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;

CREATE VIEW "chain_state_rollups_live" AS
SELECT "bucket", "state", "shadowed_state", sum("chains")::int AS "chains"
FROM (
    SELECT "bucket", "state", "shadowed_state", "chains" FROM "chain_state_rollups"
    UNION ALL
    SELECT "bucket", "state", "shadowed_state", "chains" FROM "chain_rollup_deltas"
) AS "r"
GROUP BY 1, 2, 3;

-- Backfill from the chains already stored (the same dimensions as lib/server/db/chain-rollups.ts)
INSERT INTO "chain_rollups" ("bucket", "state", "shadowed_state", "server_name", "tool", "client_name", "reason",
    "weak", "chains", "first_observed_at", "last_observed_at", "last_written_at")
SELECT date_bin('1 hour', "observed_at", 'epoch'::timestamptz), "state", coalesce("shadowed_state", ''),
    coalesce("server_name", ''), coalesce("tool", ''), "client_name", coalesce("reasons"[1], ''),
    coalesce("evidence" = 'weak', false), count(*)::int, min("observed_at"), max("observed_at"), max("updated_at")
FROM "chains"
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;

INSERT INTO "chain_state_rollups" ("bucket", "state", "shadowed_state", "chains")
SELECT "bucket", "state", "shadowed_state", sum("chains")::int
FROM "chain_rollups"
GROUP BY 1, 2, 3;
