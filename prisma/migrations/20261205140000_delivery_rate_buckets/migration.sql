-- Send-rate buckets shared by every app instance (lib/server/db/routing-rate-buckets.ts): N instances together send
-- to a Slack webhook or a PagerDuty key at its documented rate, not N times it. Keyed by a hash of the URL or key.
CREATE TABLE "delivery_rate_buckets" (
    "key_hash" TEXT NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "refilled_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "delivery_rate_buckets_pkey" PRIMARY KEY ("key_hash")
);

-- A receiver's Retry-After for every instance: the delivery claim skips a target until its pause ends.
CREATE TABLE "delivery_target_pauses" (
    "channel" TEXT NOT NULL,
    "target_index" INTEGER NOT NULL,
    "paused_until" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "delivery_target_pauses_pkey" PRIMARY KEY ("channel", "target_index")
);
