-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "health_records" (
    "seq" BIGSERIAL NOT NULL,
    "record_id" TEXT NOT NULL,
    "chain_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "content_hash" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "state" TEXT NOT NULL,
    "layer" TEXT NOT NULL,
    "reasons" TEXT[],
    "retry_safe" BOOLEAN,
    "evidence" TEXT,
    "shadowed_state" TEXT,
    "shadowed_reason" TEXT,
    "next_check_at" TIMESTAMPTZ(3),

    CONSTRAINT "health_records_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "chains" (
    "chain_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "layer" TEXT NOT NULL,
    "reasons" TEXT[],
    "retry_safe" BOOLEAN,
    "evidence" TEXT,
    "shadowed_state" TEXT,
    "shadowed_reason" TEXT,
    "next_check_at" TIMESTAMPTZ(3),
    "current_record_id" TEXT NOT NULL,
    "current_seq" BIGINT NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "evaluated_at" TIMESTAMPTZ(3) NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "server_name" TEXT,
    "server_version" TEXT,
    "client_name" TEXT NOT NULL,
    "client_version" TEXT NOT NULL,
    "transport" TEXT NOT NULL,
    "tool" TEXT,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "record_count" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "chains_pkey" PRIMARY KEY ("chain_id")
);

-- CreateTable
CREATE TABLE "chain_state_changes" (
    "id" BIGSERIAL NOT NULL,
    "chain_id" TEXT NOT NULL,
    "from_state" TEXT,
    "to_state" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "record_id" TEXT,
    "cause" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "chain_state_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ingestion_keys" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "ingestion_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "health_records_record_id_key" ON "health_records"("record_id");

-- CreateIndex
CREATE INDEX "health_records_chain_id_observed_at_seq_idx" ON "health_records"("chain_id", "observed_at" DESC, "seq" DESC);

-- CreateIndex
CREATE INDEX "health_records_session_id_idx" ON "health_records"("session_id");

-- CreateIndex
CREATE INDEX "chains_observed_at_chain_id_idx" ON "chains"("observed_at" DESC, "chain_id" DESC);

-- CreateIndex
CREATE INDEX "chains_state_observed_at_idx" ON "chains"("state", "observed_at" DESC);

-- CreateIndex
CREATE INDEX "chains_shadowed_state_observed_at_idx" ON "chains"("shadowed_state", "observed_at" DESC);

-- CreateIndex
CREATE INDEX "chains_session_id_idx" ON "chains"("session_id");

-- CreateIndex
CREATE INDEX "chains_server_name_idx" ON "chains"("server_name");

-- CreateIndex
CREATE INDEX "chains_client_name_idx" ON "chains"("client_name");

-- CreateIndex
CREATE INDEX "chains_tool_idx" ON "chains"("tool");

-- CreateIndex
CREATE INDEX "chains_next_check_at_idx" ON "chains"("next_check_at");

-- CreateIndex
CREATE INDEX "chains_labels_idx" ON "chains" USING GIN ("labels" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "chain_state_changes_chain_id_id_idx" ON "chain_state_changes"("chain_id", "id");

-- CreateIndex
CREATE INDEX "chain_state_changes_to_state_at_idx" ON "chain_state_changes"("to_state", "at");

-- CreateIndex
CREATE UNIQUE INDEX "ingestion_keys_name_key" ON "ingestion_keys"("name");

-- CreateIndex
CREATE UNIQUE INDEX "ingestion_keys_key_hash_key" ON "ingestion_keys"("key_hash");

-- AddForeignKey
ALTER TABLE "chain_state_changes" ADD CONSTRAINT "chain_state_changes_chain_id_fkey" FOREIGN KEY ("chain_id") REFERENCES "chains"("chain_id") ON DELETE CASCADE ON UPDATE CASCADE;
