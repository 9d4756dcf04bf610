"use client";

import { type FormEvent, useState } from "react";
import type { TChannel, TTarget } from "@/lib/routing/config";
import styles from "./Routing.module.css";

/** Adds a webhook (HMAC-signed), Slack-compatible or PagerDuty target to a channel. Secrets go in once, never come back. */
export function AddTargetForm({
  channels,
  onAdd,
  busy,
}: {
  channels: TChannel[];
  onAdd: (channel: string, target: TTarget) => Promise<unknown>;
  busy: boolean;
}) {
  const [channel, setChannel] = useState(channels[0]?.name ?? "");
  const [type, setType] = useState<TTarget["type"]>("webhook");
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");

  const target = (): TTarget => {
    switch (type) {
      case "webhook":
        return { type, url: url.trim(), secret };
      case "slack":
        return { type, url: url.trim() };
      case "pagerduty":
        // An empty URL means PagerDuty's own Events API.
        return url.trim()
          ? { type, routingKey: secret, url: url.trim() }
          : ({ type, routingKey: secret } as TTarget);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onAdd(channel, target()).then(
      () => {
        setUrl("");
        setSecret("");
      },
      () => undefined,
    );
  };

  return (
    <form className={styles.form} onSubmit={submit} aria-label="Add a target">
      <div className="field">
        <label htmlFor="target-channel">Add a target to</label>
        <select id="target-channel" value={channel} onChange={(e) => setChannel(e.target.value)}>
          {channels.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="target-type">Target type</label>
        <select id="target-type" value={type} onChange={(e) => setType(e.target.value as TTarget["type"])}>
          <option value="webhook">JSON webhook (HMAC-signed)</option>
          <option value="slack">Slack-compatible webhook</option>
          <option value="pagerduty">PagerDuty Events v2</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="target-url">{type === "pagerduty" ? "Events URL (empty: PagerDuty)" : "URL"}</label>
        <input id="target-url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://…" />
      </div>
      {type !== "slack" && (
        <div className="field">
          <label htmlFor="target-secret">
            {type === "webhook" ? "Signing secret (16+ characters)" : "Routing key"}
          </label>
          <input
            id="target-secret"
            type="password"
            autoComplete="off"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
          />
        </div>
      )}
      <button type="submit" className="button primary" disabled={busy}>
        Add target
      </button>
    </form>
  );
}
