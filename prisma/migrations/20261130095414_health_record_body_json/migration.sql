-- DropIndex
DROP INDEX "health_records_session_id_idx";

-- AlterTable
ALTER TABLE "health_records" ALTER COLUMN "body" SET DATA TYPE JSON;
