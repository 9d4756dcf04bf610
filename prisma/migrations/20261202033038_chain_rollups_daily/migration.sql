-- CreateTable
CREATE TABLE "chain_rollups_daily" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "state" TEXT NOT NULL,
    "server_name" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "weak" BOOLEAN NOT NULL,
    "chains" INTEGER NOT NULL,
    "first_observed_at" TIMESTAMPTZ(3),
    "last_observed_at" TIMESTAMPTZ(3),
    "last_written_at" TIMESTAMPTZ(3),

    CONSTRAINT "chain_rollups_daily_pkey" PRIMARY KEY ("bucket","state","server_name","tool","reason","weak")
);

-- The day rows and the deltas not folded yet (binned to their day), not grouped: coverage and problems read whole
-- days here, as they read whole hours from chain_rollup_rows
CREATE VIEW "chain_rollup_day_rows" AS
SELECT "bucket", "state", "server_name", "tool", "reason", "weak", "chains", "first_observed_at",
    "last_observed_at", "last_written_at"
FROM "chain_rollups_daily"
UNION ALL
SELECT date_bin('1 day', "bucket", 'epoch'::timestamptz), "state", "server_name", "tool", "reason", "weak",
    "chains", "first_observed_at", "last_observed_at", "last_written_at"
FROM "chain_rollup_deltas";

-- Backfill from the hour rows (an hour lies in one day: days and hours are both binned from the epoch)
INSERT INTO "chain_rollups_daily" ("bucket", "state", "server_name", "tool", "reason", "weak", "chains",
    "first_observed_at", "last_observed_at", "last_written_at")
SELECT date_bin('1 day', "bucket", 'epoch'::timestamptz), "state", "server_name", "tool", "reason", "weak",
    sum("chains")::int, min("first_observed_at"), max("last_observed_at"), max("last_written_at")
FROM "chain_rollups"
GROUP BY 1, 2, 3, 4, 5, 6;
