-- Capped totals of chain-list filters that combine rollup dimensions (lib/server/db/chain-list-totals.ts): chains
-- summed from the hour rollup, read index-only. State and shadowed state lead because a state filter matches either
-- (one range each), and PostgreSQL 18 skips over the leading columns a filter leaves out (server and tool alone, and
-- so on), so one index serves every combination of state, server, tool and client. Built from the rollup rows (one per
-- hour and tuple), not from chains
CREATE INDEX "chain_rollups_filters_idx" ON "chain_rollups" ("state", "shadowed_state", "server_name", "tool", "client_name", "bucket")
    INCLUDE ("chains")
