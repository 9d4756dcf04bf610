"use client";

import type { ChainSummary, QueueEntry } from "@/lib/dashboard/api-types";
import { reasonText } from "@/lib/dashboard/reason-text";
import { ReasonInline } from "../state/ReasonList";
import { StateWithShadow } from "../state/StateBadge";
import { Time } from "../ui/Time";
import { rowNavigationKeys } from "../ui/use-row-navigation";
import styles from "./Queues.module.css";
import { AssigneeName } from "../team/AssigneePicker";

/** The reason that put the chain in this queue: its own, or its shadowed state's. */
const reasonFor = (chain: ChainSummary, queue: string) =>
  chain.shadowed && chain.state !== queue ? chain.shadowed.reason : (chain.reasons[0] ?? "");

/** Queue items; Enter or a click selects one for triage (↑/↓ move, like every table here). */
export function QueueTable({
  entries,
  selected,
  onSelect,
}: {
  entries: QueueEntry[];
  selected: string | null;
  onSelect: (chainId: string) => void;
}) {
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">
          Queue items. Arrow keys move, Enter selects an item for triage.
        </caption>
        <thead>
          <tr>
            <th scope="col">State</th>
            <th scope="col" className="hide-narrow">
              Why
            </th>
            <th scope="col">Server · tool</th>
            <th scope="col">Triage</th>
            <th scope="col">Observed</th>
          </tr>
        </thead>
        <tbody onKeyDown={rowNavigationKeys}>
          {entries.map(({ chain, triage }) => (
            <tr
              key={chain.chainId}
              data-nav-row
              data-chain-id={chain.chainId}
              tabIndex={0}
              aria-selected={chain.chainId === selected}
              onClick={() => onSelect(chain.chainId)}
            >
              <td data-label="State">
                <StateWithShadow state={chain.state} shadowed={chain.shadowed} />
                {/* The Why column's words where that column is hidden (a phone, or beside the triage panel). */}
                <span className={`show-narrow ${styles.reasonLine}`}>
                  {reasonText(reasonFor(chain, triage.queue)).title}
                </span>
              </td>
              <td data-label="Why" className="hide-narrow">
                <ReasonInline code={reasonFor(chain, triage.queue)} />
              </td>
              <td data-label="Server · tool">
                <strong>{chain.server?.name ?? "no server"}</strong>
                {chain.tool && (
                  <span className="mono" style={{ whiteSpace: "nowrap" }}>
                    {" "}
                    · {chain.tool}
                  </span>
                )}
                <span className={`mono ${styles.id}`}>{chain.chainId}</span>
              </td>
              <td data-label="Triage">
                <span className={styles[`triage-${triage.status}`]}>{triage.status}</span>
                <span className={styles.owner}>
                  <AssigneeName assignee={triage.assignee} formerOwner={triage.formerOwner} />
                </span>
              </td>
              <td data-label="Observed" style={{ whiteSpace: "nowrap" }}>
                <Time iso={chain.observedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
