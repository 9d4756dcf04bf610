-- Capped totals of chain-list filters that combine rollup dimensions (lib/server/db/chain-list-totals.ts): chains
-- summed from the hour rollup, read index-only. State leads because a state filter matches the current or the
-- shadowed state (one range each), the deciding reason follows it (a reason belongs to a few states), and
-- PostgreSQL 18 skips over the leading columns a filter leaves out (server and tool alone, a reason alone), so one
-- index serves every combination of state, reason, server, tool and client. Built from the rollup rows (one per
-- hour and tuple), not from chains
CREATE INDEX "chain_rollups_filters_idx" ON "chain_rollups" ("state", "reason", "shadowed_state", "server_name", "tool", "client_name", "bucket")
    INCLUDE ("chains")
