-- AlterTable
ALTER TABLE "health_records" DROP COLUMN "content_hash";
