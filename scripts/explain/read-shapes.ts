// Every chain-list, queue and aggregate read the dashboard can send, as calls of the real repository functions: the
// explain script records the SQL each one issues and EXPLAINs it, so the plans shown are the app's, not a copy.
import type { ChainListQuery } from "../../lib/server/db/chain-list";
import type { QueueQuery } from "../../lib/server/db/queue-chains";

export type ReadShape = { label: string; run: () => Promise<unknown> };

const HOUR = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const base: ChainListQuery = { label: [], order: "desc", sort: "time", limit: 50 };

/** Chain-list filters the UI offers; each is read as its first page and, where there is one, its second. */
const CHAIN_LISTS: [string, Partial<ChainListQuery>][] = [
  ["newest", {}],
  ["oldest (order=asc)", { order: "asc" }],
  ["since=1h", { since: ago(HOUR) }],
  ["since=7d", { since: ago(168 * HOUR) }],
  ["state=healthy", { state: ["healthy"] }],
  ["state=effect_unknown (shadowed too)", { state: ["effect_unknown"] }],
  ["state=false_success,effect_unknown", { state: ["false_success", "effect_unknown"] }],
  ["state=rare&since=1h", { state: ["false_success"], since: ago(HOUR) }],
  ["server", { server: "srv-3" }],
  ["client", { client: "cli-2" }],
  ["tool", { tool: "tool-7" }],
  ["server&tool", { server: "srv-3", tool: "tool-7" }],
  ["server&client&tool", { server: "srv-3", client: "cli-2", tool: "tool-7" }],
  ["state=rare&server", { state: ["false_success"], server: "srv-3" }],
  ["tool&client", { tool: "tool-7", client: "cli-2" }],
  ["states&tool", { state: ["false_success", "tool_failed"], tool: "tool-7" }],
  ["state=healthy&client (past the cap)", { state: ["healthy"], client: "cli-2" }],
  ["state=rare&server&since=24h", { state: ["false_success"], server: "srv-3", since: ago(24 * HOUR) }],
  [
    "a problem's chains (state&server&tool&reason&since=7d)",
    {
      state: ["tool_failed"],
      server: "srv-3",
      tool: "tool-7",
      reason: "tool_failed.synthetic",
      since: ago(168 * HOUR),
    },
  ],
  ["label common", { label: ["env:staging"] }],
  ["label 1/9", { label: ["team:team-3"] }],
  ["label absent", { label: ["team:nobody"] }],
  ["two labels", { label: ["env:prod", "team:team-3"] }],
  ["label&state=rare", { label: ["team:team-3"], state: ["false_success"] }],
  ["label&server", { label: ["team:team-3"], server: "srv-3" }],
  ["label&since=1h", { label: ["env:prod"], since: ago(HOUR) }],
  ["server absent", { server: "srv-none" }],
  ["session", { session: "s:4242" }],
  ["reason", { reason: "tool_failed.synthetic" }],
  ["reason absent", { reason: "catalog.nobody" }],
  ["sort=danger", { sort: "danger" }],
  ["sort=danger&state=healthy", { sort: "danger", state: ["healthy"] }],
  ["sort=danger&state=effect_unknown", { sort: "danger", state: ["effect_unknown"] }],
  ["sort=danger&server", { sort: "danger", server: "srv-3" }],
  ["sort=danger&label", { sort: "danger", label: ["team:team-3"] }],
  ["sort=danger&since=1h", { sort: "danger", since: ago(HOUR) }],
];

const QUEUE_READS: [string, Partial<QueueQuery>][] = [
  ["queue effect_unknown", { queue: "effect_unknown", status: "open" }],
  ["queue effect_unknown all", { queue: "effect_unknown", status: "all" }],
  ["queue false_success resolved", { queue: "false_success", status: "resolved" }],
  ["queue false_success acknowledged", { queue: "false_success", status: "acknowledged" }],
];

export async function readShapes(): Promise<ReadShape[]> {
  const { listChains } = await import("../../lib/server/db/chain-list");
  const { listQueueChains, countQueueByStatus } = await import("../../lib/server/db/queue-chains");
  const { listNewestNeedingAttention } = await import("../../lib/server/db/chain-summaries");
  const { chainFacets } = await import("../../lib/server/db/chain-facets");
  const { outcomeCoverage } = await import("../../lib/server/db/coverage");
  const { listProblems } = await import("../../lib/server/problems/problems-service");
  const { parseCursor } = await import("../../lib/dashboard/cursor");
  const shapes: ReadShape[] = [];
  for (const [label, filters] of CHAIN_LISTS) {
    const query = { ...base, ...filters };
    shapes.push({ label, run: () => listChains(query) });
    shapes.push({
      label: `${label}, page 2`,
      run: async () => {
        const first = await listChains(query);
        const cursor = first.nextCursor ? parseCursor(first.nextCursor) : undefined;
        return cursor ? listChains({ ...query, cursor }) : null;
      },
    });
  }
  for (const [label, filters] of QUEUE_READS) {
    const query = { order: "desc", limit: 50, ...filters } as QueueQuery;
    shapes.push({ label, run: () => listQueueChains(query) });
  }
  shapes.push({ label: "queue counts effect_unknown", run: () => countQueueByStatus("effect_unknown") });
  shapes.push({ label: "queue counts false_success", run: () => countQueueByStatus("false_success") });
  shapes.push({ label: "attention", run: () => listNewestNeedingAttention(10) });
  shapes.push({
    label: "attention since=24h",
    run: () => listNewestNeedingAttention(10, new Date(ago(24 * HOUR))),
  });
  shapes.push({ label: "facets", run: () => chainFacets() });
  shapes.push({ label: "coverage all time", run: () => outcomeCoverage() });
  shapes.push({ label: "coverage since=7d", run: () => outcomeCoverage(new Date(ago(168 * HOUR))) });
  for (const window of ["24h", "7d", "30d"] as const) {
    shapes.push({
      label: `problems ${window}`,
      run: () => listProblems({ window, status: "open", sort: "last_seen", limit: 100 }),
    });
  }
  const problemVariants = [
    ["30d sort=count status=all", { window: "30d", status: "all", sort: "count" }],
    ["24h status=resolved", { window: "24h", status: "resolved", sort: "last_seen" }],
    ["7d text=auth", { window: "7d", status: "open", sort: "last_seen", text: "auth" }],
    ["7d server=srv-3", { window: "7d", status: "open", sort: "count", server: "srv-3" }],
  ] as const;
  for (const [label, query] of problemVariants) {
    shapes.push({ label: `problems ${label}`, run: () => listProblems({ ...query, limit: 100 }) });
  }
  return shapes;
}
