"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { matchersForLabels } from "@/lib/routing/alert-workspace";
import type { SilencePreviewAlert, WorkspaceAlertView } from "@/lib/dashboard/routing-api-types";
import { StateBadge } from "../state/StateBadge";
import { FormError } from "../routing/FormError";
import { useCreateSilence } from "../routing/routing-queries";
import { useSilencePreview } from "./alerts-queries";
import styles from "./Alerts.module.css";

/** Labels offered as matchers, in this order; the first two are ticked to start with. */
const OFFERED = ["state", "server", "tool", "reason", "client", "chain"];
const TICKED = new Set(["state", "server"]);
const DURATIONS = ["1h", "2h", "4h", "12h", "1d", "7d"];

function PreviewList({ alerts, testId }: { alerts: SilencePreviewAlert[]; testId: string }) {
  return (
    <ul className={styles.previewList} data-testid={testId}>
      {alerts.slice(0, 50).map((a) => (
        <li key={a.fingerprint}>
          <StateBadge state={a.state} />{" "}
          <Link href={`/chains/${encodeURIComponent(a.chainId)}`}>{a.chainId}</Link>
        </li>
      ))}
      {alerts.length > 50 && <li className="muted">… and {alerts.length - 50} more</li>}
    </ul>
  );
}

/**
 * "Silence…" from an alert: matchers prefilled from its labels, a duration and a comment, and a live preview of
 * every firing alert the silence would mute — including the protected ones it would not (effect_unknown and
 * false_success are muted only by a silence that names their state).
 */
export function SilenceDialog({ alert, onClose }: { alert: WorkspaceAlertView; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const names = OFFERED.filter((name) => alert.labels[name]);
  const [ticked, setTicked] = useState(() => new Set(names.filter((n) => TICKED.has(n))));
  const [extra, setExtra] = useState("");
  const [duration, setDuration] = useState("2h");
  const [comment, setComment] = useState("");
  const create = useCreateSilence();
  const client = useQueryClient();
  const matchers = [
    ...matchersForLabels(
      alert.labels,
      names.filter((n) => ticked.has(n)),
    ),
    ...extra
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean),
  ];
  const preview = useSilencePreview(matchers);

  useEffect(() => {
    dialog.current?.showModal();
  }, []);

  const toggle = (name: string) =>
    setTicked((current) => {
      const next = new Set(current);
      if (!next.delete(name)) next.add(name);
      return next;
    });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { matchers, duration, comment },
      {
        onSuccess: async () => {
          await client.invalidateQueries({ queryKey: ["alert-groups"] });
          onClose();
        },
      },
    );
  };

  const others = preview.data?.muted.filter((a) => a.fingerprint !== alert.fingerprint) ?? [];
  const mutesThisOne = preview.data?.muted.some((a) => a.fingerprint === alert.fingerprint) ?? false;
  return (
    <dialog ref={dialog} className={styles.dialog} onClose={onClose} aria-labelledby="silence-title">
      <form onSubmit={submit} className="stack">
        <h2 id="silence-title">Silence alerts like this one</h2>
        <fieldset className={styles.fieldset}>
          <legend>Match alerts whose labels equal</legend>
          {names.map((name) => (
            <label key={name} className={styles.matcher}>
              <input type="checkbox" checked={ticked.has(name)} onChange={() => toggle(name)} />{" "}
              <code>{matchersForLabels(alert.labels, [name])[0]}</code>
            </label>
          ))}
          <label htmlFor="silence-extra">More matchers (one a line, e.g. tool=~"write_.*")</label>
          <textarea id="silence-extra" rows={2} value={extra} onChange={(e) => setExtra(e.target.value)} />
        </fieldset>
        <div className={styles.row}>
          <label htmlFor="silence-duration">For</label>
          <select id="silence-duration" value={duration} onChange={(e) => setDuration(e.target.value)}>
            {DURATIONS.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </div>
        <label htmlFor="silence-comment">Why (required)</label>
        <input id="silence-comment" value={comment} onChange={(e) => setComment(e.target.value)} required />
        <section aria-live="polite" className={styles.preview} data-testid="silence-preview">
          <h3>Preview</h3>
          {matchers.length === 0 ? (
            <p className="muted">Tick at least one matcher.</p>
          ) : preview.isError ? (
            <FormError error={preview.error} />
          ) : !preview.data ? (
            <p className="muted">Checking what it would mute…</p>
          ) : (
            <>
              <p data-testid="preview-summary">
                {mutesThisOne ? "Mutes this alert" : "Does not mute this alert"} and{" "}
                <strong>{others.length}</strong> other firing alert{others.length === 1 ? "" : "s"}
                {preview.data.truncated ? ` (of the first ${preview.data.scanned} read)` : ""}.
              </p>
              {others.length > 0 && <PreviewList alerts={others} testId="preview-muted" />}
              {preview.data.keptProtected.length > 0 && (
                <div className={styles.protected} data-testid="preview-protected">
                  <p>
                    <strong>Still loud: {preview.data.keptProtected.length}</strong> protected alert(s) match
                    but stay loud — effect_unknown and false_success are muted only by a silence that names
                    their state (<code>state="effect_unknown"</code>).
                  </p>
                  <PreviewList alerts={preview.data.keptProtected} testId="preview-kept" />
                </div>
              )}
            </>
          )}
        </section>
        <FormError error={create.error} />
        <div className={styles.row}>
          <button
            type="submit"
            className="button primary"
            disabled={create.isPending || matchers.length === 0}
          >
            Create silence
          </button>
          <button type="button" className="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
