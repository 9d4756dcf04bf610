"use client";

import { type FormEvent, useState } from "react";
import type { TChannel, TTarget } from "@/lib/routing/config";
import { FieldIssues, FormError, issuesUnder } from "./FormError";
import styles from "./Routing.module.css";

/** Adds a webhook (HMAC-signed), Slack-compatible or PagerDuty target to a channel. Secrets go in once, never come back. */
export function AddTargetForm({
  channels,
  onAdd,
  busy,
  error,
}: {
  channels: TChannel[];
  onAdd: (channel: string, target: TTarget) => Promise<unknown>;
  busy: boolean;
  /** The refused add, if it was this form's: its problems go next to their fields. */
  error: unknown;
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

  // The target being added is the channel's next one: the server names its problems at that index.
  const channelIndex = channels.findIndex((c) => c.name === channel);
  const at = `$.channels[${channelIndex}].targets[${channels[channelIndex]?.targets.length ?? 0}]`;
  const secretPath = type === "pagerduty" ? `${at}.routingKey` : `${at}.secret`;
  const fieldPaths = [`${at}.url`, secretPath];
  const others = issuesUnder(error, at).filter((issue) => !fieldPaths.includes(issue.path));
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
        <input
          id="target-url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://…"
          aria-describedby="target-url-error"
        />
        <FieldIssues id="target-url-error" error={error} path={`${at}.url`} />
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
            aria-describedby="target-secret-error"
          />
          <FieldIssues id="target-secret-error" error={error} path={secretPath} />
        </div>
      )}
      <button type="submit" className="button primary" disabled={busy}>
        Add target
      </button>
      {error && issuesUnder(error, at).length === 0 ? (
        <FormError error={error} />
      ) : others.length > 0 ? (
        <p className="field-error" role="alert">
          {others.map((issue) => issue.message).join("; ")}
        </p>
      ) : null}
    </form>
  );
}
