"use client";

import Link from "next/link";
import type { ChainSummary } from "@/lib/dashboard/api-types";
import { reasonText } from "@/lib/dashboard/reason-text";
import { ReasonInline } from "../state/ReasonList";
import { StateWithShadow } from "../state/StateBadge";
import { Time } from "../ui/Time";
import { rowClick, rowNavigationKeys } from "../ui/use-row-navigation";
import styles from "./ChainTable.module.css";

export const chainHref = (chainId: string) => `/chains/${encodeURIComponent(chainId)}`;

/**
 * Chains as a table an operator can walk with the keyboard (↑/↓, Enter opens). Sorting is by observation time only,
 * since that is the order the API pages in; `onToggleOrder` makes the Observed header a sort button.
 */
export function ChainTable({
  chains,
  caption,
  order,
  onToggleOrder,
}: {
  chains: ChainSummary[];
  caption: string;
  order?: "asc" | "desc";
  onToggleOrder?: () => void;
}) {
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">
          {caption}. Use the arrow keys to move between rows, Enter to open.
        </caption>
        <thead>
          <tr>
            <th scope="col">State</th>
            <th scope="col" className="hide-narrow">
              Why
            </th>
            <th scope="col">Server · tool</th>
            <th scope="col" className="hide-narrow">
              Client
            </th>
            <th scope="col" className="hide-narrow">
              Labels
            </th>
            <th scope="col" aria-sort={order ? (order === "desc" ? "descending" : "ascending") : undefined}>
              {onToggleOrder ? (
                <button type="button" className="sort-button" onClick={onToggleOrder}>
                  Observed <span aria-hidden="true">{order === "asc" ? "↑" : "↓"}</span>
                  <span className="visually-hidden">
                    , {order === "asc" ? "oldest first" : "newest first"}; activate to reverse
                  </span>
                </button>
              ) : (
                "Observed"
              )}
            </th>
          </tr>
        </thead>
        <tbody onKeyDown={rowNavigationKeys}>
          {chains.map((chain) => (
            <tr
              key={chain.chainId}
              data-nav-row
              tabIndex={0}
              onClick={rowClick}
              data-chain-id={chain.chainId}
            >
              <td data-label="State">
                <StateWithShadow state={chain.state} shadowed={chain.shadowed} />
                <span className={`show-narrow ${styles.reason}`}>
                  {reasonText(chain.reasons[0] ?? "").title}
                </span>
              </td>
              <td data-label="Why" className="hide-narrow">
                <ReasonInline code={chain.reasons[0] ?? ""} />
              </td>
              <td data-label="Server · tool">
                <Link href={chainHref(chain.chainId)} data-row-link tabIndex={-1} className={styles.primary}>
                  {chain.server?.name ?? <span className="muted">no server</span>}
                  {chain.tool && <span className={styles.tool}> · {chain.tool}</span>}
                </Link>
                <span className={`mono ${styles.id}`}>{chain.chainId}</span>
              </td>
              <td data-label="Client" className="hide-narrow">
                {chain.client.name} <span className="muted">{chain.client.version}</span>
              </td>
              <td data-label="Labels" className="hide-narrow">
                <Labels labels={chain.labels} />
              </td>
              <td data-label="Observed" className={styles.time}>
                <Time iso={chain.observedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Labels({ labels }: { labels: Record<string, string> }) {
  const entries = Object.entries(labels);
  if (entries.length === 0) return <span className="muted">–</span>;
  return (
    <span className={styles.labels}>
      {entries.map(([key, value]) => (
        <span key={key} className={styles.label}>
          {key}={value}
        </span>
      ))}
    </span>
  );
}
