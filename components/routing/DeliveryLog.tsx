"use client";

import Link from "next/link";
import { Fragment, useState } from "react";
import { useDeliveryPage } from "../alerts/alerts-queries";
import { Time } from "../ui/Time";
import { useUrlState } from "../ui/use-url-state";
import { FormError } from "./FormError";
import { useRoleAllows } from "../auth/CurrentUser";
import { roleReason } from "../auth/RoleGate";
import { useRetryDelivery } from "./routing-queries";
import type { DeliveryView } from "@/lib/dashboard/routing-api-types";
import styles from "./Routing.module.css";

function Attempts({ delivery }: { delivery: DeliveryView }) {
  return (
    <div>
      <table className="data-table" aria-label={`Attempts of delivery ${delivery.id}`}>
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">At</th>
            <th scope="col">Status code</th>
            <th scope="col" className="num">
              Latency
            </th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {delivery.attemptLog.map((a, i) => (
            <tr key={a.at}>
              <td data-label="Attempt">{i + 1}</td>
              <td data-label="At">
                <Time iso={a.at} absolute />
              </td>
              <td data-label="Status code">{a.statusCode ?? "–"}</td>
              <td data-label="Latency" className="num">
                {a.latencyMs} ms
              </td>
              <td data-label="Error">{a.error ?? <span className={styles.ok}>ok</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <details className={styles.details}>
        <summary>Payload sent</summary>
        <pre className={styles.pre}>{JSON.stringify(delivery.body, null, 2)}</pre>
      </details>
    </div>
  );
}

/** What a notification was about: its route and group labels, and its alerts' chains, as links. */
function What({ delivery }: { delivery: DeliveryView }) {
  if (delivery.kind === "test") return <>test notification</>;
  return (
    <div className={styles.what}>
      {delivery.group ? (
        <div>
          route <strong>{delivery.group.routeName ?? delivery.group.routeId}</strong>
          {Object.entries(delivery.group.labels).map(([name, value]) => (
            <code key={name} className={styles.chip}>
              {name}={value === "" ? "∅" : value}
            </code>
          ))}
        </div>
      ) : (
        <div className="muted mono">{delivery.groupKey}</div>
      )}
      <div>
        {delivery.alertFingerprints.length} alert(s)
        {delivery.alerts.slice(0, 10).map((a) => (
          <Fragment key={a.fingerprint}>
            {" · "}
            <Link href={`/chains/${encodeURIComponent(a.chainId)}`} data-testid="delivery-chain">
              {a.chainId}
            </Link>{" "}
            <Link href={`/alerts?chain=${encodeURIComponent(a.chainId)}&status=any`} className="muted">
              ({a.state} alert)
            </Link>
          </Fragment>
        ))}
        {delivery.alerts.length > 10 && (
          <span className="muted"> · and {delivery.alerts.length - 10} more</span>
        )}
      </div>
    </div>
  );
}

/**
 * Every notification to every target, newest first, with each attempt; dead letters can be sent again. Filters and
 * the page live in the URL (deliveries_status, deliveries_chain, deliveries_before).
 */
export function DeliveryLog() {
  const { params, update } = useUrlState();
  const status = params.get("deliveries_status") ?? "";
  const chain = params.get("deliveries_chain") ?? "";
  const before = params.get("deliveries_before") ?? "";
  const [open, setOpen] = useState<string | null>(null);
  const log = useDeliveryPage({ status, chain, before });
  const retry = useRetryDelivery();
  const mayRetry = useRoleAllows("responder");
  const rows = log.data?.deliveries ?? [];
  const nextCursor = log.data?.nextCursor ?? null;
  return (
    <div>
      <div className={styles.actions} style={{ marginBottom: "0.5rem" }}>
        <label htmlFor="delivery-status">Show</label>
        <select
          id="delivery-status"
          value={status}
          onChange={(e) => update({ deliveries_status: e.target.value, deliveries_before: null })}
        >
          <option value="">all deliveries</option>
          <option value="pending">pending</option>
          <option value="delivered">delivered</option>
          <option value="dead">dead letters</option>
        </select>
        {chain && (
          <>
            <span>
              of chain <code className={styles.chip}>{chain}</code>
            </span>
            <button
              type="button"
              className="button small"
              onClick={() => update({ deliveries_chain: null, deliveries_before: null })}
            >
              All chains
            </button>
          </>
        )}
      </div>
      <FormError error={log.error ?? retry.error} />
      {rows.length === 0 ? (
        <p className="muted">
          Nothing delivered yet. Add a target to a channel and send a test notification.
        </p>
      ) : (
        <div className={`table-scroll ${styles.scrollBox}`}>
          <table className="data-table" data-testid="delivery-log">
            <caption className="visually-hidden">Delivery log</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Channel → target</th>
                <th scope="col">What</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">Last error</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <Fragment key={d.id}>
                  <tr data-testid="delivery" data-status={d.status} data-channel={d.channel}>
                    <td data-label="Created">
                      <Time iso={d.createdAt} />
                    </td>
                    <td data-label="Channel → target">
                      <strong>{d.channel}</strong> → {d.targetType}
                      <div className="muted mono" style={{ wordBreak: "break-all" }}>
                        {d.url}
                      </div>
                    </td>
                    <td data-label="What">
                      <What delivery={d} />
                    </td>
                    <td data-label="Status">
                      <span className={styles.badge} data-status={d.status}>
                        {d.status === "dead" ? "dead letter" : d.status}
                      </span>
                    </td>
                    <td data-label="Attempts" className="num">
                      {d.attempts}/{d.maxAttempts}
                    </td>
                    <td data-label="Last error" className={styles.what}>
                      {d.lastError ?? "–"}
                    </td>
                    <td className={styles.actions}>
                      <button
                        type="button"
                        className="button small"
                        aria-expanded={open === d.id}
                        onClick={() => setOpen(open === d.id ? null : d.id)}
                      >
                        {open === d.id ? "Hide" : "Attempts"}
                      </button>
                      {d.status === "dead" && (
                        <button
                          type="button"
                          className="button small primary"
                          disabled={retry.isPending || !mayRetry}
                          title={mayRetry ? undefined : roleReason("responder", "retry deliveries")}
                          onClick={() => retry.mutate(d.id)}
                        >
                          Retry
                        </button>
                      )}
                    </td>
                  </tr>
                  {open === d.id && (
                    <tr>
                      <td colSpan={7}>
                        <Attempts delivery={d} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav aria-label="Delivery pages" className={styles.actions} style={{ marginTop: "0.5rem" }}>
        <button
          type="button"
          className="button small"
          disabled={!before}
          onClick={() => update({ deliveries_before: null })}
        >
          ⇤ Newest
        </button>
        <button
          type="button"
          className="button small"
          disabled={!nextCursor || log.isFetching}
          onClick={() => nextCursor && update({ deliveries_before: nextCursor })}
        >
          Older →
        </button>
      </nav>
    </div>
  );
}
