"use client";

import { diffLines } from "diff";
import styles from "./Routing.module.css";

type Line = { kind: "added" | "removed" | "same"; text: string };
type Row = Line | { kind: "skipped"; count: number };

/** Unchanged lines kept around each change, as `diff -u` does. */
const CONTEXT = 3;

function diffRows(before: string, after: string): Row[] {
  const lines: Line[] = diffLines(before, after).flatMap((change) =>
    change.value
      .replace(/\n$/, "")
      .split("\n")
      .map((text) => ({ kind: change.added ? "added" : change.removed ? "removed" : "same", text }) as Line),
  );
  const near = lines.map((_, i) =>
    lines.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((line) => line.kind !== "same"),
  );
  const rows: Row[] = [];
  lines.forEach((line, i) => {
    if (near[i]) rows.push(line);
    else {
      const last = rows.at(-1);
      if (last?.kind === "skipped") last.count += 1;
      else rows.push({ kind: "skipped", count: 1 });
    }
  });
  return rows;
}

const MARK = { added: "+", removed: "−", same: " " } as const;
const SPOKEN = { added: "added: ", removed: "removed: ", same: "" } as const;

/**
 * A line diff of two configs' pretty JSON (secrets masked in both): removed lines struck, added lines marked, each
 * announced as such to a screen reader; long unchanged stretches folded.
 */
export function VersionDiff({
  before,
  after,
  beforeLabel,
  afterLabel,
}: {
  before: string;
  after: string;
  beforeLabel: string;
  afterLabel: string;
}) {
  const rows = diffRows(before, after);
  const added = rows.filter((row) => row.kind === "added").length;
  const removed = rows.filter((row) => row.kind === "removed").length;
  if (added === 0 && removed === 0)
    return (
      <p className="muted" data-testid="version-diff">
        {beforeLabel} and {afterLabel} are the same.
      </p>
    );
  return (
    <figure className={styles.diffFigure} data-testid="version-diff">
      <figcaption>
        From {beforeLabel} to {afterLabel}: <span className={styles.diffAddedCount}>{added} added</span>,{" "}
        <span className={styles.diffRemovedCount}>{removed} removed</span> line
        {added + removed === 1 ? "" : "s"}
      </figcaption>
      <ol className={styles.diff} aria-label={`Changes from ${beforeLabel} to ${afterLabel}`}>
        {rows.map((row, i) =>
          row.kind === "skipped" ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: a diff's rows have no identity but their order
            <li key={i} className={styles.diffSkipped}>
              … {row.count} unchanged line{row.count === 1 ? "" : "s"}
            </li>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: a diff's rows have no identity but their order
            <li key={i} className={styles.diffLine} data-kind={row.kind}>
              <span aria-hidden="true" className={styles.diffMark}>
                {MARK[row.kind]}
              </span>
              {row.kind === "added" ? (
                <ins>
                  <span className="visually-hidden">{SPOKEN.added}</span>
                  {row.text}
                </ins>
              ) : row.kind === "removed" ? (
                <del>
                  <span className="visually-hidden">{SPOKEN.removed}</span>
                  {row.text}
                </del>
              ) : (
                <span>{row.text}</span>
              )}
            </li>
          ),
        )}
      </ol>
    </figure>
  );
}
