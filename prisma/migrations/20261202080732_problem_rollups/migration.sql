-- CreateTable
CREATE TABLE "problem_rollups" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "server_name" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "chains" INTEGER NOT NULL,
    "first_observed_at" TIMESTAMPTZ(3),
    "last_observed_at" TIMESTAMPTZ(3),
    "last_written_at" TIMESTAMPTZ(3),

    CONSTRAINT "problem_rollups_pkey" PRIMARY KEY ("bucket","server_name","tool","state","reason")
);

-- CreateTable
CREATE TABLE "problem_rollups_daily" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "server_name" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "chains" INTEGER NOT NULL,
    "first_observed_at" TIMESTAMPTZ(3),
    "last_observed_at" TIMESTAMPTZ(3),
    "last_written_at" TIMESTAMPTZ(3),

    CONSTRAINT "problem_rollups_daily_pkey" PRIMARY KEY ("bucket","server_name","tool","state","reason")
);

-- CreateIndex
CREATE INDEX "problem_rollups_server_name_tool_state_reason_bucket_idx" ON "problem_rollups"("server_name", "tool", "state", "reason", "bucket");

-- CreateIndex
CREATE INDEX "problem_rollups_daily_server_name_tool_state_reason_bucket_idx" ON "problem_rollups_daily"("server_name", "tool", "state", "reason", "bucket");

-- The problem rows and the deltas not folded yet (problem states only), not grouped: the problems read ranks tuples
-- over whole days of the day view and the hours before them from the hour view
CREATE VIEW "problem_rollup_rows" AS
SELECT "bucket", "server_name", "tool", "state", "reason", "chains", "first_observed_at", "last_observed_at",
    "last_written_at"
FROM "problem_rollups"
UNION ALL
SELECT "bucket", "server_name", "tool", "state", "reason", "chains", "first_observed_at", "last_observed_at",
    "last_written_at"
FROM "chain_rollup_deltas"
WHERE "state" NOT IN ('healthy', 'working');

CREATE VIEW "problem_rollup_day_rows" AS
SELECT "bucket", "server_name", "tool", "state", "reason", "chains", "first_observed_at", "last_observed_at",
    "last_written_at"
FROM "problem_rollups_daily"
UNION ALL
SELECT date_bin('1 day', "bucket", 'epoch'::timestamptz), "server_name", "tool", "state", "reason", "chains",
    "first_observed_at", "last_observed_at", "last_written_at"
FROM "chain_rollup_deltas"
WHERE "state" NOT IN ('healthy', 'working');

-- Backfill from the folded hour rollup (the deltas not folded yet reach these tables when they are folded)
INSERT INTO "problem_rollups" ("bucket", "server_name", "tool", "state", "reason", "chains", "first_observed_at",
    "last_observed_at", "last_written_at")
SELECT "bucket", "server_name", "tool", "state", "reason", sum("chains")::int,
    min("first_observed_at") FILTER (WHERE "chains" > 0), max("last_observed_at") FILTER (WHERE "chains" > 0),
    max("last_written_at")
FROM "chain_rollups"
WHERE "state" NOT IN ('healthy', 'working')
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO "problem_rollups_daily" ("bucket", "server_name", "tool", "state", "reason", "chains",
    "first_observed_at", "last_observed_at", "last_written_at")
SELECT date_bin('1 day', "bucket", 'epoch'::timestamptz), "server_name", "tool", "state", "reason",
    sum("chains")::int, min("first_observed_at") FILTER (WHERE "chains" > 0),
    max("last_observed_at") FILTER (WHERE "chains" > 0), max("last_written_at")
FROM "problem_rollups"
GROUP BY 1, 2, 3, 4, 5;
