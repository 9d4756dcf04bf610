-- AlterTable
ALTER TABLE "chains" ADD COLUMN     "operation_key" TEXT,
ADD COLUMN     "request_id" TEXT;

-- Backfill from each chain's current record (a number request id becomes its decimal text)
UPDATE "chains" AS c
SET "request_id" = h.body -> 'call' ->> 'requestId', "operation_key" = h.body -> 'call' ->> 'operationKey'
FROM "health_records" AS h
WHERE h.record_id = c.current_record_id AND h.body -> 'call' IS NOT NULL;

-- CreateIndex
CREATE INDEX "chains_request_id_idx" ON "chains"("request_id");

-- CreateIndex
CREATE INDEX "chains_operation_key_idx" ON "chains"("operation_key");
