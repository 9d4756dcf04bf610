-- Chain-list totals of a tool with a client (lib/server/db/chain-list-totals.ts): chain_rollups_filters_idx has
-- tool and client behind state, reason, shadowed state and server, so PostgreSQL skipped over every prefix of those
-- or scanned the rollup. Tool and client lead here (tool alone, tool and client, and with the server), the other
-- dimensions and the count are included, so such a total is one index-only range. Built from the rollup rows (one
-- per hour and tuple), not from chains
CREATE INDEX "chain_rollups_tool_client_idx" ON "chain_rollups" ("tool", "client_name", "server_name", "bucket")
    INCLUDE ("state", "shadowed_state", "reason", "chains");
