"use client";

import { useChainList } from "../api/queries";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { Pager } from "../ui/Pager";
import { useUrlState } from "../ui/use-url-state";
import { ChainFilters } from "./ChainFilters";
import { ChainTable } from "./ChainTable";

const FILTER_KEYS = ["state", "server", "client", "tool", "session", "since", "until"] as const;

/** Every chain, filtered and paged by the URL (`/chains?state=tool_failed&label=env:prod`). */
export function ChainsView() {
  const { params, update } = useUrlState();
  const query: Record<string, string | string[] | undefined> = {};
  for (const key of FILTER_KEYS) query[key] = params.get(key) ?? undefined;
  query.label = params.getAll("label");
  query.order = params.get("order") ?? undefined;
  query.cursor = params.get("cursor") ?? undefined;
  const list = useChainList(query);
  const order = params.get("order") === "asc" ? "asc" : "desc";
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
      </div>
      <ChainFilters params={params} onChange={update} />
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
            order={order}
            onToggleOrder={() => update({ order: order === "desc" ? "asc" : null })}
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
