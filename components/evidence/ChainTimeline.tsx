import type { ChainDetail, ChainTriage } from "@/lib/dashboard/api-types";
import { formatAbsolute } from "@/lib/dashboard/format";
import { reasonText } from "@/lib/dashboard/reason-text";
import { StateBadge } from "../state/StateBadge";
import styles from "./Evidence.module.css";

type Entry = { at: string; order: number; key: string; kind: string; body: React.ReactNode };

const ACTION_WORDS: Record<string, string> = {
  acknowledge: "acknowledged",
  assign: "assigned",
  unassign: "unassigned",
  note: "noted",
  resolve: "resolved",
  reopen: "reopened",
  reconcile: "reconciled",
};

/** Every record, state change and triage action of the chain, oldest first: the chain's story. */
export function ChainTimeline({ detail, triage }: { detail: ChainDetail; triage: ChainTriage | undefined }) {
  const entries: Entry[] = [
    ...detail.records.map((record) => ({
      at: record.observedAt,
      order: 0,
      key: `r:${record.recordId}`,
      kind: "Record",
      body: (
        <>
          <code>{record.recordId}</code> classified <StateBadge state={record.state} />{" "}
          {reasonText(record.reasons[0] ?? "").title}
          {record.current && <strong className={styles.current}> current</strong>}
        </>
      ),
    })),
    ...detail.history.map((change, index) => ({
      at: change.at,
      order: 1,
      key: `h:${index}`,
      kind: change.cause === "record" ? "State change" : `State change (${change.cause})`,
      body: (
        <>
          {change.fromState ? <StateBadge state={change.fromState} /> : "new chain"} →{" "}
          <StateBadge state={change.toState} /> <code>{change.reason}</code>
        </>
      ),
    })),
    ...(triage?.events ?? []).map((event) => ({
      at: event.at,
      order: 2,
      key: `t:${event.id}`,
      kind: "Triage",
      body: (
        <>
          <strong>{event.actor}</strong> {ACTION_WORDS[event.action] ?? event.action}
          {event.queue && <span className="muted"> ({event.queue.replace("_", " ")})</span>}
          {describeData(event.action, event.data)}
          {event.note && <q className={styles.note}>{event.note}</q>}
        </>
      ),
    })),
  ].sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || a.order - b.order);

  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <ol className={styles.timeline}>
        {entries.map((entry) => (
          <li key={entry.key} data-kind={entry.kind}>
            <time dateTime={entry.at}>{formatAbsolute(entry.at)}</time>
            <span className={styles.kind}>{entry.kind}</span>
            <span>{entry.body}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

function describeData(action: string, data: Record<string, unknown> | null): string {
  if (!data) return "";
  if (action === "assign") return data.to ? ` to ${String(data.to)}` : " to nobody";
  if (action === "unassign") return data.from ? ` (was ${String(data.from)})` : "";
  if (action === "reconcile") {
    const receipt = data.receipt ? ` (receipt ${String(data.receipt)})` : "";
    return `: destination ${String(data.status)}${receipt}; ${String(data.fromState)} → ${String(data.toState)}`;
  }
  return "";
}
