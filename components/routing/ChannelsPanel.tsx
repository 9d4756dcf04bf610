"use client";

import { useState } from "react";
import type { TChannel, TTarget } from "@/lib/routing/config";
import { FieldIssues, FormError } from "./FormError";
import { AddTargetForm } from "./AddTargetForm";
import type { TargetHealth } from "@/lib/routing/target-health";
import { Time } from "../ui/Time";
import { useTargetHealth, useTestNotification } from "./routing-queries";
import styles from "./Routing.module.css";

/** A target as shown: secrets are already masked by the API (webhook secret, routing key, Slack path). */
function describeTarget(target: TTarget): string {
  switch (target.type) {
    case "webhook":
      return `signed JSON webhook → ${target.url} (secret ${target.secret.split("#")[0]})`;
    case "slack":
      return `Slack-compatible → ${target.url.split("/••••••")[0]}/••••••`;
    case "pagerduty":
      return `PagerDuty Events v2 → ${target.url} (routing key ${target.routingKey.split("#")[0]})`;
  }
}

function TestButton({ channel }: { channel: TChannel }) {
  const test = useTestNotification();
  return (
    <span className={styles.actions}>
      <button
        type="button"
        className="button small"
        disabled={test.isPending || channel.targets.length === 0}
        title={channel.targets.length === 0 ? "add a target first" : undefined}
        onClick={() => test.mutate(channel.name)}
      >
        Send test notification
      </button>
      {test.isSuccess && (
        <span className={styles.ok} role="status">
          Queued {test.data.deliveries.length} deliver{test.data.deliveries.length === 1 ? "y" : "ies"} — see
          the delivery log
        </span>
      )}
      <FormError error={test.error} />
    </span>
  );
}

/** Whether a target's deliveries arrive: its last success, its last failure in a sentence, its dead letters. */
function TargetHealthLine({ health }: { health: TargetHealth | undefined }) {
  if (!health) return null;
  return (
    <div className={styles.targetHealth} data-testid="target-health" data-status={health.status}>
      <span className={styles[`health-${health.status}`]}>
        {health.status === "ok"
          ? "delivering"
          : health.status === "failing"
            ? "failing"
            : "nothing sent this week"}
      </span>
      {health.lastSuccessAt && (
        <>
          {" · last success "}
          <Time iso={health.lastSuccessAt} />
        </>
      )}
      {health.lastFailure && (
        <>
          {" · last failure "}
          <Time iso={health.lastFailure.at} />: {health.lastFailure.sentence}
        </>
      )}
      {health.dead > 0 && ` · ${health.dead} dead this week`}
      {health.retrying > 0 && ` · ${health.retrying} waiting to be retried`}
    </div>
  );
}

/** Channels (who owns the fix) and their targets; each can be tested end to end. */
export function ChannelsPanel({
  channels,
  onRemoveTarget,
  onAddTarget,
  onAddChannel,
  busy,
  error,
}: {
  channels: TChannel[];
  onRemoveTarget: (channel: string, index: number) => void;
  onAddTarget: (channel: string, target: TTarget) => Promise<unknown>;
  onAddChannel: (channel: TChannel) => Promise<unknown>;
  busy: boolean;
  error: unknown;
}) {
  const [name, setName] = useState("");
  const [owner, setOwner] = useState("");
  // Which form the refused change came from: its problems are shown there, next to their fields.
  const [origin, setOrigin] = useState<"target" | "channel" | "other">("other");
  const [missing, setMissing] = useState<{ name?: string; owner?: string }>({});
  const health = useTargetHealth().data?.targets ?? [];
  const healthOf = (channel: string, index: number) =>
    health.find((target) => target.channel === channel && target.targetIndex === index);
  return (
    <div>
      {channels.map((channel) => (
        <div key={channel.name} className={styles.channel} data-testid="channel" data-channel={channel.name}>
          <div className={styles.nodeHead}>
            <strong>{channel.name}</strong>
            <span className="muted">owner: {channel.ownerRole}</span>
            <TestButton channel={channel} />
          </div>
          {channel.targets.length === 0 ? (
            <p className="muted" style={{ margin: "0.3rem 0 0" }}>
              No targets: alerts routed here are recorded but not delivered.
            </p>
          ) : (
            <ul className={styles.targets}>
              {channel.targets.map((target, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a target's position is its identity in the config
                <li key={i}>
                  {describeTarget(target)}{" "}
                  <button
                    type="button"
                    className="button small danger"
                    disabled={busy}
                    onClick={() => onRemoveTarget(channel.name, i)}
                  >
                    Remove
                  </button>
                  <TargetHealthLine health={healthOf(channel.name, i)} />
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
      <AddTargetForm
        channels={channels}
        onAdd={(channel, target) => {
          setOrigin("target");
          return onAddTarget(channel, target);
        }}
        busy={busy}
        error={origin === "target" ? error : null}
      />
      <form
        className={styles.form}
        aria-label="Add a channel"
        onSubmit={(event) => {
          event.preventDefault();
          const problems = {
            ...(name.trim() ? {} : { name: "Give the channel a name." }),
            ...(owner.trim() ? {} : { owner: "Say which team or role owns the fix." }),
          };
          setMissing(problems);
          if (problems.name || problems.owner) return;
          setOrigin("channel");
          onAddChannel({ name: name.trim(), ownerRole: owner.trim(), targets: [] }).then(
            () => {
              setName("");
              setOwner("");
            },
            () => undefined,
          );
        }}
      >
        <div className="field">
          <label htmlFor="channel-name">New channel name</label>
          <input
            id="channel-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="payments-oncall"
            aria-invalid={Boolean(missing.name) || undefined}
            aria-describedby="channel-name-error"
          />
          {missing.name ? (
            <p id="channel-name-error" className="field-error">
              {missing.name}
            </p>
          ) : (
            <FieldIssues
              id="channel-name-error"
              error={origin === "channel" ? error : null}
              path={`$.channels[${channels.length}].name`}
            />
          )}
        </div>
        <div className="field">
          <label htmlFor="channel-owner">Owner role</label>
          <input
            id="channel-owner"
            value={owner}
            onChange={(e) => setOwner(e.target.value)}
            placeholder="payments team"
            aria-invalid={Boolean(missing.owner) || undefined}
            aria-describedby="channel-owner-error"
          />
          {missing.owner ? (
            <p id="channel-owner-error" className="field-error">
              {missing.owner}
            </p>
          ) : (
            <FieldIssues
              id="channel-owner-error"
              error={origin === "channel" ? error : null}
              path={`$.channels[${channels.length}].ownerRole`}
            />
          )}
        </div>
        <button type="submit" className="button" disabled={busy}>
          Add channel
        </button>
      </form>
      <FormError error={origin === "target" ? null : error} />
    </div>
  );
}
