"use client";

import { type FormEvent, useState } from "react";
import { ApiClientError } from "../api/http";
import { useSaveNotificationTarget, useTestNotificationTarget } from "../api/mutations";
import { useNotificationTarget } from "../api/queries";
import { ErrorState, LoadingState } from "../ui/StatusViews";
import styles from "./Account.module.css";

/** Account → My notifications: where the alerts of the items assigned to me go, beside the team's receivers. */
export function NotificationTargetView() {
  const current = useNotificationTarget();
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <p className="muted">Account</p>
          <h1>My notifications</h1>
          <p>
            When an alert of an item or alert assigned to you is sent to the team, a copy goes to your own
            webhook or Slack channel too. It is retried and logged like the team&apos;s, and a target that
            fails delays nobody else.
          </p>
        </div>
      </div>
      {current.isPending ? (
        <LoadingState label="Loading your notification target" rows={2} />
      ) : current.isError ? (
        <ErrorState error={current.error} what="your notification target" onRetry={() => current.refetch()} />
      ) : (
        <>
          <CurrentTarget target={current.data.target} />
          <TargetForm hasTarget={current.data.target !== null} />
        </>
      )}
    </div>
  );
}

function CurrentTarget({ target }: { target: { kind: string; url: string; signed: boolean } | null }) {
  const remove = useSaveNotificationTarget();
  const test = useTestNotificationTarget();
  if (!target) {
    return (
      <section className="panel" aria-labelledby="current-target-title">
        <h2 id="current-target-title">Current target</h2>
        <p className="muted" data-testid="no-target">
          None: only the team&apos;s receivers are notified of what is assigned to you.
        </p>
      </section>
    );
  }
  return (
    <section className="panel" aria-labelledby="current-target-title" data-testid="current-target">
      <h2 id="current-target-title">Current target</h2>
      <p className={styles.target}>
        <strong>{target.kind === "slack" ? "Slack" : "Webhook"}</strong> <code>{target.url}</code>
        {target.kind === "webhook" && (
          <span className="muted"> · {target.signed ? "signed (HMAC)" : "unsigned"}</span>
        )}
      </p>
      <div className={styles.buttons}>
        <button
          type="button"
          className="button small"
          disabled={test.isPending}
          onClick={() => test.mutate()}
        >
          {test.isPending ? "Sending…" : "Send test"}
        </button>
        <button
          type="button"
          className="button small"
          disabled={remove.isPending}
          onClick={() => remove.mutate(null)}
        >
          Remove
        </button>
      </div>
      {test.isSuccess && (
        <p role="status" data-testid="test-sent">
          Test notification queued: see Routing → Deliveries for what your target answered.
        </p>
      )}
      {test.error && (
        <p className="field-error" role="alert">
          {test.error.message}
        </p>
      )}
    </section>
  );
}

function TargetForm({ hasTarget }: { hasTarget: boolean }) {
  const save = useSaveNotificationTarget();
  const [kind, setKind] = useState<"webhook" | "slack">("webhook");
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const error = save.error instanceof ApiClientError ? save.error : null;

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = {
      kind,
      url: url.trim(),
      ...(kind === "webhook" && secret.trim() ? { secret: secret.trim() } : {}),
    };
    save.mutate(body, {
      onSuccess: () => {
        setUrl("");
        setSecret("");
      },
    });
  }

  return (
    <form className="panel stack" onSubmit={submit} aria-labelledby="target-form-title">
      <h2 id="target-form-title">{hasTarget ? "Replace it" : "Set a target"}</h2>
      <fieldset className={styles.kinds}>
        <legend>Kind</legend>
        <label>
          <input type="radio" name="kind" checked={kind === "webhook"} onChange={() => setKind("webhook")} />{" "}
          Webhook (JSON, as the team&apos;s webhooks)
        </label>
        <label>
          <input type="radio" name="kind" checked={kind === "slack"} onChange={() => setKind("slack")} />{" "}
          Slack incoming webhook
        </label>
      </fieldset>
      <div className="field">
        <label htmlFor="target-url">URL</label>
        <input
          id="target-url"
          type="url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder={
            kind === "slack" ? "https://hooks.slack.com/services/…" : "https://example.com/receipt-hook"
          }
          required
        />
        {error?.issueAt("$.url") && <span className="field-error">{error.issueAt("$.url")}</span>}
      </div>
      {kind === "webhook" && (
        <div className="field">
          <label htmlFor="target-secret">Signing secret (optional, 16 characters or more)</label>
          <input
            id="target-secret"
            type="password"
            autoComplete="off"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
          />
          {error?.issueAt("$.secret") && <span className="field-error">{error.issueAt("$.secret")}</span>}
        </div>
      )}
      <div>
        <button type="submit" className="button primary" disabled={!url.trim() || save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </button>
      </div>
      {error && !error.issueAt("$.url") && !error.issueAt("$.secret") && (
        <p className="field-error" role="alert">
          {error.issues[0]?.message ?? error.message}
        </p>
      )}
    </form>
  );
}
