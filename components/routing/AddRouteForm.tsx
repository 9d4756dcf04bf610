"use client";

import { type FormEvent, useState } from "react";
import type { TRouteConfig, TRoutingConfig } from "@/lib/routing/config";
import { SEVERITIES } from "@/lib/routing/types";
import { FormError } from "./FormError";
import styles from "./Routing.module.css";

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * Adds a child route under the root. First by default: routes are tried in order and the first match wins, so a
 * new, more specific route usually belongs before the shipped catch-alls.
 */
export function AddRouteForm({
  config,
  onAdd,
  busy,
  error,
}: {
  config: TRoutingConfig;
  onAdd: (route: TRouteConfig, first: boolean) => Promise<unknown>;
  busy: boolean;
  error: unknown;
}) {
  const [name, setName] = useState("");
  const [matchers, setMatchers] = useState("");
  const [receiver, setReceiver] = useState(config.channels[0]?.name ?? "");
  const [groupWait, setGroupWait] = useState("");
  const [severity, setSeverity] = useState("");
  const [continueOn, setContinue] = useState(false);
  const [first, setFirst] = useState(true);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const route: TRouteConfig = {
      ...(name.trim() ? { name: name.trim() } : {}),
      matchers: lines(matchers),
      receiver,
      ...(groupWait.trim() ? { groupWait: groupWait.trim() } : {}),
      ...(severity ? { severity: severity as TRouteConfig["severity"] } : {}),
      ...(continueOn ? { continue: true } : {}),
    };
    await onAdd(route, first).then(
      () => {
        setName("");
        setMatchers("");
        setGroupWait("");
      },
      () => undefined,
    );
  };

  return (
    <form className={styles.form} onSubmit={submit} aria-label="Add a route">
      <div className="field">
        <label htmlFor="route-name">Route name</label>
        <input
          id="route-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="payments team"
        />
      </div>
      <div className="field">
        <label htmlFor="route-receiver">Channel</label>
        <select id="route-receiver" value={receiver} onChange={(e) => setReceiver(e.target.value)}>
          {config.channels.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="route-wait">Group wait (optional)</label>
        <input
          id="route-wait"
          value={groupWait}
          onChange={(e) => setGroupWait(e.target.value)}
          placeholder="30s"
        />
      </div>
      <div className="field">
        <label htmlFor="route-severity">Severity override</label>
        <select id="route-severity" value={severity} onChange={(e) => setSeverity(e.target.value)}>
          <option value="">the alert's own</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <div className={`field ${styles.wide}`}>
        <label htmlFor="route-matchers">Matchers, one per line</label>
        <textarea
          id="route-matchers"
          value={matchers}
          onChange={(e) => setMatchers(e.target.value)}
          placeholder={'label.team="payments"\nstate=~"tool_failed|protocol_error"'}
        />
      </div>
      <div className={styles.actions}>
        <label>
          <input type="checkbox" checked={continueOn} onChange={(e) => setContinue(e.target.checked)} />
          continue to later routes
        </label>
        <label>
          <input type="checkbox" checked={first} onChange={(e) => setFirst(e.target.checked)} />
          try it first
        </label>
        <button type="submit" className="button primary" disabled={busy}>
          Add route
        </button>
      </div>
      <div className={styles.wide}>
        <FormError error={error} />
      </div>
    </form>
  );
}
