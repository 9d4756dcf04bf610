-- Spans and exports POST /v1/traces refused, by hour and code (issue 43): the coverage page counts them for its
-- window, so a reporter whose spans are refused shows beside the calls it did report, not only on /metrics.
CREATE TABLE "otlp_refusals" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "code" TEXT NOT NULL,
    "spans" BIGINT NOT NULL DEFAULT 0,
    "exports" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "otlp_refusals_pkey" PRIMARY KEY ("bucket","code")
);
