-- The single-column lookups become (column, observed_at DESC): the same equality probes, and a filtered chain list
-- reads them in its own order instead of walking every chain by time

-- DropIndex
DROP INDEX "chains_session_id_idx";

-- DropIndex
DROP INDEX "chains_server_name_idx";

-- DropIndex
DROP INDEX "chains_client_name_idx";

-- DropIndex
DROP INDEX "chains_tool_idx";

-- AlterTable
ALTER TABLE "chains" ADD COLUMN     "operation_key" TEXT,
ADD COLUMN     "request_id" TEXT;

-- Backfill from each chain's current record (a number request id becomes its decimal text)
UPDATE "chains" AS c
SET "request_id" = h.body -> 'call' ->> 'requestId', "operation_key" = h.body -> 'call' ->> 'operationKey'
FROM "health_records" AS h
WHERE h.record_id = c.current_record_id AND h.body -> 'call' IS NOT NULL;

-- CreateIndex
CREATE INDEX "chains_session_id_observed_at_idx" ON "chains"("session_id", "observed_at" DESC);

-- CreateIndex
CREATE INDEX "chains_server_name_observed_at_idx" ON "chains"("server_name", "observed_at" DESC);

-- CreateIndex
CREATE INDEX "chains_client_name_observed_at_idx" ON "chains"("client_name", "observed_at" DESC);

-- CreateIndex
CREATE INDEX "chains_tool_observed_at_idx" ON "chains"("tool", "observed_at" DESC);

-- CreateIndex
CREATE INDEX "chains_request_id_observed_at_idx" ON "chains"("request_id", "observed_at" DESC);

-- CreateIndex
CREATE INDEX "chains_operation_key_observed_at_idx" ON "chains"("operation_key", "observed_at" DESC);
