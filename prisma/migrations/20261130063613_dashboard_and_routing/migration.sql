-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "username" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'admin',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_sessions" (
    "token_hash" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_sessions_pkey" PRIMARY KEY ("token_hash")
);

-- CreateTable
CREATE TABLE "triage_items" (
    "id" BIGSERIAL NOT NULL,
    "chain_id" TEXT NOT NULL,
    "queue" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "owner" TEXT,
    "acknowledged_at" TIMESTAMPTZ(3),
    "acknowledged_by" TEXT,
    "resolved_at" TIMESTAMPTZ(3),
    "resolved_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "triage_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "triage_events" (
    "id" BIGSERIAL NOT NULL,
    "chain_id" TEXT NOT NULL,
    "queue" TEXT,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "note" TEXT,
    "data" JSONB,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "triage_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "operator_effects" (
    "id" BIGSERIAL NOT NULL,
    "chain_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "receipt" TEXT,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,
    "actor" TEXT NOT NULL,
    "note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "operator_effects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "routing_config_versions" (
    "id" BIGSERIAL NOT NULL,
    "config" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT NOT NULL,
    "comment" TEXT,

    CONSTRAINT "routing_config_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "silences" (
    "id" UUID NOT NULL,
    "matchers" TEXT[],
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3) NOT NULL,
    "created_by" TEXT NOT NULL,
    "comment" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expired_at" TIMESTAMPTZ(3),

    CONSTRAINT "silences_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alerts" (
    "fingerprint" TEXT NOT NULL,
    "chain_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "labels" JSONB NOT NULL,
    "context" JSONB,
    "reasons" TEXT[],
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alerts_pkey" PRIMARY KEY ("fingerprint")
);

-- CreateTable
CREATE TABLE "alert_outbox" (
    "id" BIGSERIAL NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "chain_id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "alert_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_groups" (
    "group_key" TEXT NOT NULL,
    "receiver" TEXT NOT NULL,
    "route_path" TEXT NOT NULL,
    "labels" JSONB NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "last_sent_at" TIMESTAMPTZ(3),
    "last_sent_fingerprints" TEXT[],
    "next_action_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_groups_pkey" PRIMARY KEY ("group_key")
);

-- CreateTable
CREATE TABLE "deliveries" (
    "id" BIGSERIAL NOT NULL,
    "group_key" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "target_index" INTEGER NOT NULL,
    "target_type" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL DEFAULT 8,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_attempts" (
    "id" BIGSERIAL NOT NULL,
    "delivery_id" BIGINT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status_code" INTEGER,
    "latency_ms" INTEGER NOT NULL,
    "error" TEXT,

    CONSTRAINT "delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_username_key" ON "users"("username");

-- CreateIndex
CREATE INDEX "user_sessions_user_id_idx" ON "user_sessions"("user_id");

-- CreateIndex
CREATE INDEX "triage_items_queue_status_idx" ON "triage_items"("queue", "status");

-- CreateIndex
CREATE UNIQUE INDEX "triage_items_chain_id_queue_key" ON "triage_items"("chain_id", "queue");

-- CreateIndex
CREATE INDEX "triage_events_chain_id_id_idx" ON "triage_events"("chain_id", "id");

-- CreateIndex
CREATE INDEX "operator_effects_chain_id_checked_at_idx" ON "operator_effects"("chain_id", "checked_at" DESC);

-- CreateIndex
CREATE INDEX "silences_ends_at_idx" ON "silences"("ends_at");

-- CreateIndex
CREATE INDEX "alerts_chain_id_idx" ON "alerts"("chain_id");

-- CreateIndex
CREATE INDEX "alerts_status_state_idx" ON "alerts"("status", "state");

-- CreateIndex
CREATE INDEX "alert_outbox_processed_at_id_idx" ON "alert_outbox"("processed_at", "id");

-- CreateIndex
CREATE INDEX "notification_groups_next_action_at_idx" ON "notification_groups"("next_action_at");

-- CreateIndex
CREATE INDEX "deliveries_status_next_attempt_at_idx" ON "deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "deliveries_created_at_idx" ON "deliveries"("created_at" DESC);

-- CreateIndex
CREATE INDEX "delivery_attempts_delivery_id_id_idx" ON "delivery_attempts"("delivery_id", "id");

-- AddForeignKey
ALTER TABLE "user_sessions" ADD CONSTRAINT "user_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
