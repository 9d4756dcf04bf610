"use client";

import { type FormEvent, useState } from "react";
import { formatDuration } from "@/lib/routing/duration";
import { FormError } from "./FormError";
import { useRouteTest } from "./routing-queries";
import type { RouteTestAnswer } from "@/lib/dashboard/routing-api-types";
import styles from "./Routing.module.css";

/** Which channels would be told, and which only record the alert because they have no target. */
function Reach({ answer }: { answer: RouteTestAnswer }) {
  const delivered = answer.channels.filter((channel) => !answer.undelivered.includes(channel));
  if (answer.channels.length === 0) return <span className="muted">It would notify nobody.</span>;
  return (
    <>
      {delivered.length > 0 && (
        <>
          It would notify <strong>{delivered.join(", ")}</strong>.{" "}
        </>
      )}
      {answer.undelivered.length > 0 && (
        <span className={styles.problem} data-testid="route-test-undelivered">
          Recorded, not delivered (no target): <strong>{answer.undelivered.join(", ")}</strong>.{" "}
          <a href="#channels">Add a target</a>
        </span>
      )}
    </>
  );
}

function Result({ answer }: { answer: RouteTestAnswer }) {
  return (
    <div data-testid="route-test-result" style={{ marginTop: "0.75rem" }}>
      <p style={{ margin: 0 }}>
        Chain <code>{answer.chain.chainId}</code> is <strong data-state={answer.state}>{answer.state}</strong>{" "}
        ({answer.chain.reasons[0]}
        {answer.chain.shadowed ? `; shadowed ${answer.chain.shadowed.state}` : ""}). <Reach answer={answer} />
      </p>
      {answer.alerts.map((alert) => (
        <div key={alert.fingerprint} className={styles.node}>
          <div className={styles.nodeHead}>
            <span className={styles.nodeName}>
              {alert.state}
              {alert.shadowedBy ? ` (behind ${alert.shadowedBy})` : ""}
            </span>
            {alert.notifies ? (
              alert.routes.some((route) => route.delivered) ? (
                <span className={styles.ok}>notifies</span>
              ) : (
                <span className={styles.problem} data-testid="not-delivered">
                  recorded, not delivered: no target
                </span>
              )
            ) : (
              <span className={styles.problem}>
                {alert.silencedBy
                  ? `silenced by ${alert.silencedBy.createdBy}: ${alert.silencedBy.comment}`
                  : `inhibited by ${alert.inhibitedBy?.sourceState} on ${alert.inhibitedBy?.sourceChainId}`}
              </span>
            )}
          </div>
          <ul className={styles.explanation}>
            {alert.routes.map((route) => (
              <li key={route.routePath}>
                → <strong>{route.receiver}</strong>{" "}
                {route.delivered ? (
                  `(${route.targetTypes.join(" + ")})`
                ) : (
                  <span className={styles.problem}>(recorded, not delivered: no target)</span>
                )}{" "}
                via {route.routeName ?? route.routePath}, severity {route.severity}
                {route.delayMs > 0 ? `, held ${formatDuration(route.delayMs)}` : ""} — because{" "}
                {route.matchedBecause.join("; ")}
              </li>
            ))}
          </ul>
        </div>
      ))}
      {answer.quiet && <p className="muted">{answer.quiet}</p>}
    </div>
  );
}

/** "Which channels would this chain reach, and why?" — for a pasted record or a stored chain. Stores nothing. */
export function RouteTestPanel() {
  const test = useRouteTest();
  const [mode, setMode] = useState<"record" | "chain">("record");
  const [text, setText] = useState("");
  const [parseError, setParseError] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setParseError(null);
    if (mode === "chain") return test.mutate({ chainId: text.trim() });
    try {
      test.mutate({ record: JSON.parse(text) as unknown });
    } catch {
      setParseError("That is not JSON: paste one health record.");
    }
  };

  return (
    <form onSubmit={submit} aria-label="Route test">
      <fieldset className={styles.actions} style={{ border: 0, padding: 0, margin: "0 0 0.5rem" }}>
        <legend className="visually-hidden">Test with</legend>
        <label>
          <input type="radio" checked={mode === "record"} onChange={() => setMode("record")} /> a pasted
          record
        </label>
        <label>
          <input type="radio" checked={mode === "chain"} onChange={() => setMode("chain")} /> a stored chain
          id
        </label>
      </fieldset>
      {mode === "record" ? (
        <textarea
          aria-label="Health record JSON"
          className={styles.jsonEditor}
          style={{ minHeight: "9rem" }}
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder='{"schemaVersion": 1, "recordId": "…", …}'
        />
      ) : (
        <input
          aria-label="Chain id"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="chain:…"
        />
      )}
      <div className={styles.actions} style={{ marginTop: "0.5rem" }}>
        <button type="submit" className="button primary" disabled={test.isPending || !text.trim()}>
          Test routing
        </button>
      </div>
      {parseError && <p className="field-error">{parseError}</p>}
      <FormError error={test.error} />
      {test.data && <Result answer={test.data} />}
    </form>
  );
}
