-- DropIndex
DROP INDEX "chain_state_changes_to_state_at_idx";
