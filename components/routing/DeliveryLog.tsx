"use client";

import { Fragment, useState } from "react";
import { Time } from "../ui/Time";
import { FormError } from "./FormError";
import { useDeliveries, useRetryDelivery } from "./routing-queries";
import type { DeliveryView } from "@/lib/dashboard/api-types";
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
              <td>{i + 1}</td>
              <td>
                <Time iso={a.at} absolute />
              </td>
              <td>{a.statusCode ?? "–"}</td>
              <td className="num">{a.latencyMs} ms</td>
              <td>{a.error ?? <span className={styles.ok}>ok</span>}</td>
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

/** Every notification to every target, newest first, with each attempt; dead letters can be sent again. */
export function DeliveryLog() {
  const [status, setStatus] = useState("");
  const [open, setOpen] = useState<string | null>(null);
  const log = useDeliveries(status);
  const retry = useRetryDelivery();
  const rows = log.data?.deliveries ?? [];
  return (
    <div>
      <div className={styles.actions} style={{ marginBottom: "0.5rem" }}>
        <label htmlFor="delivery-status">Show</label>
        <select id="delivery-status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">all deliveries</option>
          <option value="pending">pending</option>
          <option value="delivered">delivered</option>
          <option value="dead">dead letters</option>
        </select>
      </div>
      <FormError error={log.error ?? retry.error} />
      {rows.length === 0 ? (
        <p className="muted">
          Nothing delivered yet. Add a target to a channel and send a test notification.
        </p>
      ) : (
        <div className="table-scroll">
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
                    <td>
                      <Time iso={d.createdAt} />
                    </td>
                    <td>
                      <strong>{d.channel}</strong> → {d.targetType}
                      <div className="muted mono" style={{ wordBreak: "break-all" }}>
                        {d.url}
                      </div>
                    </td>
                    <td>
                      {d.kind === "test" ? "test notification" : `${d.alertFingerprints.length} alert(s)`}
                      <div className="muted mono" style={{ wordBreak: "break-all" }}>
                        {d.groupKey}
                      </div>
                    </td>
                    <td>
                      <span className={styles.badge} data-status={d.status}>
                        {d.status === "dead" ? "dead letter" : d.status}
                      </span>
                    </td>
                    <td className="num">
                      {d.attempts}/{d.maxAttempts}
                    </td>
                    <td>{d.lastError ?? "–"}</td>
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
                          disabled={retry.isPending}
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
    </div>
  );
}
