"use client";

import { formatChainTotal } from "@/lib/dashboard/chain-list-query";
import { useChainList } from "../api/queries";
import { RefreshStatus } from "../ui/RefreshStatus";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { Pager } from "../ui/Pager";
import { useUrlState } from "../ui/use-url-state";
import { ChainFilters } from "./ChainFilters";
import { ChainTable } from "./ChainTable";
import styles from "./ChainsView.module.css";

const SORTS = {
  newest: { sort: null, order: null },
  oldest: { sort: null, order: "asc" },
  danger: { sort: "danger", order: null },
} as const;

const FILTER_KEYS = ["state", "server", "client", "tool", "session", "since", "until"] as const;

/** Every chain, filtered and paged by the URL (`/chains?state=tool_failed&label=env:prod`). */
export function ChainsView() {
  const { params, update } = useUrlState();
  const query: Record<string, string | string[] | undefined> = {};
  for (const key of FILTER_KEYS) query[key] = params.get(key) ?? undefined;
  query.state = params.getAll("state");
  query.label = params.getAll("label");
  query.order = params.get("order") ?? undefined;
  query.sort = params.get("sort") ?? undefined;
  query.cursor = params.get("cursor") ?? undefined;
  const list = useChainList(query);
  const order = params.get("order") === "asc" ? "asc" : "desc";
  const sort = params.get("sort") === "danger" ? "danger" : order === "asc" ? "oldest" : "newest";
  const filtered = FILTER_KEYS.some((key) => params.get(key)) || params.getAll("label").length > 0;

  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Chains</h1>
          <p>
            One row per evidence chain, by its newest record. A state filter also finds chains it is shadowed
            in.
          </p>
        </div>
        <RefreshStatus queryKey={["chains"]} />
      </div>
      <ChainFilters params={params} onChange={update} />
      <div className={styles.summary}>
        <p data-testid="chain-total" aria-live="polite">
          {list.data ? formatChainTotal(list.data.total) : "\u00a0"}
        </p>
        <label>
          Sort{" "}
          <select
            value={sort}
            onChange={(event) => update(SORTS[event.target.value as keyof typeof SORTS] ?? SORTS.newest)}
          >
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
            <option value="danger">Most dangerous first</option>
          </select>
        </label>
      </div>
      {list.isPending ? (
        <LoadingState label="Loading chains" rows={8} />
      ) : list.isError ? (
        <ErrorState error={list.error} what="chains" onRetry={() => list.refetch()} />
      ) : list.data.chains.length === 0 ? (
        <div className="panel">
          <EmptyState title={filtered ? "No chain matches these filters" : "No chains yet"}>
            {filtered ? (
              <p>Widen the time range or remove a filter.</p>
            ) : (
              <p>
                Post health records to <code>/api/v1/records</code> with an ingestion key (Settings), or run{" "}
                <code>npm run db:seed</code> for demo data.
              </p>
            )}
          </EmptyState>
        </div>
      ) : (
        <div aria-busy={list.isFetching}>
          <ChainTable
            chains={list.data.chains}
            caption="Chains"
            order={sort === "danger" ? undefined : order}
            onToggleOrder={
              sort === "danger" ? undefined : () => update({ order: order === "desc" ? "asc" : null })
            }
          />
          <Pager
            hasPrevious={Boolean(params.get("cursor"))}
            nextCursor={list.data.nextCursor}
            shown={list.data.chains.length}
            busy={list.isFetching}
            onFirst={() => update({})}
            onNext={(cursor) => update({ cursor }, { keepCursor: true })}
          />
        </div>
      )}
    </div>
  );
}
