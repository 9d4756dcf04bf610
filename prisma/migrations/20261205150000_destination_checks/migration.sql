-- Destination checks (issue 40 §3): their configuration, versioned like routing (the newest row is current), and
-- every run's decision on a chain, without anything the destination answered beyond a short receipt.
CREATE TABLE "check_config_versions" (
    "id" BIGSERIAL NOT NULL,
    "config" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT NOT NULL,
    "comment" TEXT,
    CONSTRAINT "check_config_versions_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "check_runs" (
    "id" BIGSERIAL NOT NULL,
    "chain_id" TEXT NOT NULL,
    "check_name" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "effect" TEXT NOT NULL,
    "outcome" TEXT,
    "receipt" TEXT NOT NULL,
    "reconciled" BOOLEAN NOT NULL DEFAULT false,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "check_runs_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "check_runs_chain_id_at_idx" ON "check_runs"("chain_id", "at" DESC);
