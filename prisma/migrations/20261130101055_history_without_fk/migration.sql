-- DropForeignKey
ALTER TABLE "chain_state_changes" DROP CONSTRAINT "chain_state_changes_chain_id_fkey";
