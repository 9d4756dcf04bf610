"use client";

import Link from "next/link";
import { type FormEvent, useState } from "react";
import type { SilenceView } from "@/lib/dashboard/routing-api-types";
import { Time } from "../ui/Time";
import { FormError } from "./FormError";
import { useCreateSilence, useExpireSilence, useSilences } from "./routing-queries";
import styles from "./Routing.module.css";

/**
 * Silences: time-boxed mutes with an author and a reason. A broad silence never hides effect_unknown or
 * false_success; only one that names that state (state="effect_unknown") can.
 */
export function SilencesPanel() {
  const silences = useSilences();
  const create = useCreateSilence();
  const expire = useExpireSilence();
  const [matchers, setMatchers] = useState("");
  const [duration, setDuration] = useState("2h");
  const [comment, setComment] = useState("");

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const list = matchers
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    create.mutate(
      { matchers: list, duration, comment },
      {
        onSuccess: () => {
          setMatchers("");
          setComment("");
        },
      },
    );
  };

  const rows = silences.data?.silences ?? [];
  return (
    <div>
      {silences.isError && <FormError error={silences.error} />}
      {rows.length === 0 ? (
        <p className="muted">No silences in the last week.</p>
      ) : (
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Silences</caption>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Matchers</th>
                <th scope="col">Mutes now</th>
                <th scope="col">Ends</th>
                <th scope="col">By · why</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.id} data-testid="silence">
                  <td data-label="Status">
                    <span className={styles.badge} data-status={s.status}>
                      {s.status}
                    </span>
                  </td>
                  <td data-label="Matchers">
                    <span className={styles.chips}>
                      {s.matchers.map((m) => (
                        <code key={m} className={styles.chip}>
                          {m}
                        </code>
                      ))}
                    </span>
                  </td>
                  <td data-label="Mutes now" data-column="mutes">
                    <MutedNow silence={s} />
                  </td>
                  <td data-label="Ends">
                    <Time iso={s.endsAt} />
                  </td>
                  <td data-label="By · why">
                    {s.createdBy} · {s.comment}
                  </td>
                  <td>
                    {s.status !== "expired" && (
                      <button
                        type="button"
                        className="button small"
                        disabled={expire.isPending}
                        onClick={() => expire.mutate(s.id)}
                      >
                        Expire
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form className={styles.form} onSubmit={submit} aria-label="Add a silence">
        <div className={`field ${styles.wide}`}>
          <label htmlFor="silence-matchers">Silence alerts matching (one matcher per line)</label>
          <textarea
            id="silence-matchers"
            value={matchers}
            onChange={(e) => setMatchers(e.target.value)}
            placeholder={'server="reports-mcp"\nstate="tool_failed"'}
          />
        </div>
        <div className="field">
          <label htmlFor="silence-duration">For</label>
          <input id="silence-duration" value={duration} onChange={(e) => setDuration(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="silence-comment">Why</label>
          <input id="silence-comment" value={comment} onChange={(e) => setComment(e.target.value)} />
        </div>
        <button type="submit" className="button primary" disabled={create.isPending}>
          Add silence
        </button>
        <div className={styles.wide}>
          <FormError error={create.error} />
        </div>
      </form>
    </div>
  );
}

/** What an active silence hides now, linked to the alerts page's muted alerts; nothing for one not in force. */
function MutedNow({ silence }: { silence: SilenceView }) {
  if (!silence.mutes) return <span className="muted">—</span>;
  const { alerts, more } = silence.mutes;
  if (alerts === 0) return <span className="muted">no firing alert</span>;
  return (
    <Link href="/alerts?muted=1">
      {alerts}
      {more ? "+" : ""} firing {alerts === 1 && !more ? "alert" : "alerts"}
    </Link>
  );
}
