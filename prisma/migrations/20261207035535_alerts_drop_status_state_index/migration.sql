-- DropIndex
DROP INDEX "alerts_status_state_idx";
