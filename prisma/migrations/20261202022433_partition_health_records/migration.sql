-- Records partitioned by week of observed_at (docs/ARCHITECTURE.md, Retention): old weeks go by dropping a
-- partition instead of deleting rows. A partitioned table's unique keys must hold the partition key, so the
-- primary key is (seq, observed_at) and record_id is unique with observed_at, and ingestion keeps record_id unique
-- on its own under a lock of the record id (lib/server/db/records.ts).
--
-- Existing rows move to the DEFAULT partition, which also takes any record outside every weekly partition (a far
-- past or future observed_at), so no record is ever refused for its time. Weekly partitions are made after every
-- migration run and ahead by the retention job (lib/server/db/retention-partitions.ts), which moves the rows of
-- their week out of the DEFAULT partition. The sequence is kept, so seqs go on from where they were.
ALTER TABLE "health_records" RENAME TO "health_records_unpartitioned";
ALTER INDEX "health_records_pkey" RENAME TO "health_records_unpartitioned_pkey";
ALTER INDEX "health_records_record_id_key" RENAME TO "health_records_unpartitioned_record_id_key";
ALTER INDEX "health_records_chain_id_observed_at_seq_idx" RENAME TO "health_records_unpartitioned_chain_idx";

CREATE TABLE "health_records" (
    "seq" BIGINT NOT NULL DEFAULT nextval('health_records_seq_seq'),
    "record_id" TEXT NOT NULL,
    "chain_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "body" JSON NOT NULL,
    "state" TEXT NOT NULL,
    "layer" TEXT NOT NULL,
    "reasons" TEXT[],
    "retry_safe" BOOLEAN,
    "evidence" TEXT,
    "shadowed_state" TEXT,
    "shadowed_reason" TEXT,
    "next_check_at" TIMESTAMPTZ(3),

    CONSTRAINT "health_records_pkey" PRIMARY KEY ("seq", "observed_at")
) PARTITION BY RANGE ("observed_at");

CREATE TABLE "health_records_default" PARTITION OF "health_records" DEFAULT;

CREATE UNIQUE INDEX "health_records_record_id_observed_at_key" ON "health_records"("record_id", "observed_at");

CREATE INDEX "health_records_chain_id_observed_at_seq_idx" ON "health_records"("chain_id", "observed_at" DESC, "seq" DESC);

CREATE INDEX "health_records_received_at_idx" ON "health_records" USING BRIN ("received_at");

INSERT INTO "health_records" ("seq", "record_id", "chain_id", "session_id", "observed_at", "received_at", "body",
    "state", "layer", "reasons", "retry_safe", "evidence", "shadowed_state", "shadowed_reason", "next_check_at")
  SELECT "seq", "record_id", "chain_id", "session_id", "observed_at", "received_at", "body",
    "state", "layer", "reasons", "retry_safe", "evidence", "shadowed_state", "shadowed_reason", "next_check_at"
  FROM "health_records_unpartitioned";

ALTER SEQUENCE "health_records_seq_seq" OWNED BY "health_records"."seq";

DROP TABLE "health_records_unpartitioned";
