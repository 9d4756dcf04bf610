"use client";

import { useId, useState } from "react";
import type { ConfigVersion, RoutingConfigAnswer } from "@/lib/dashboard/routing-api-types";
import { Pager } from "../ui/Pager";
import { ErrorState, LoadingState } from "../ui/StatusViews";
import { Time } from "../ui/Time";
import { ConfirmDialog } from "./ConfirmDialog";
import { FormError } from "./FormError";
import { useRoleAllows } from "../auth/CurrentUser";
import { roleReason } from "../auth/RoleGate";
import { useConfigVersion, useConfigVersions, useRestoreVersion } from "./routing-queries";
import { VersionDiff } from "./VersionDiff";
import styles from "./Routing.module.css";

const pretty = (config: unknown) => JSON.stringify(config, null, 2);
const PAGE = 20;

/** One selected version: its masked config, or its line diff against the current or another version. */
function VersionDetail({
  version,
  current,
  others,
  onRestore,
}: {
  version: string;
  current: RoutingConfigAnswer;
  others: ConfigVersion[];
  onRestore: () => void;
}) {
  const uid = useId();
  const mayRestore = useRoleAllows("admin");
  const isCurrent = version === current.version;
  const choices = others.filter((v) => v.version !== version && v.version !== current.version);
  const [compareWith, setCompareWith] = useState<string>(
    isCurrent ? (choices.find((v) => BigInt(v.version) < BigInt(version))?.version ?? "") : "current",
  );
  const [mode, setMode] = useState<"diff" | "config">("diff");
  const shown = useConfigVersion(version);
  const other = useConfigVersion(compareWith && compareWith !== "current" ? compareWith : null);
  if (shown.isPending) return <LoadingState label={`Loading version ${version}`} rows={4} />;
  if (shown.isError)
    return <ErrorState error={shown.error} what={`version ${version}`} onRetry={() => shown.refetch()} />;
  const otherText =
    compareWith === "current" ? pretty(current.config) : other.data ? pretty(other.data.config) : null;
  const otherLabel =
    compareWith === "current" ? `the current config (v${current.version})` : `v${compareWith}`;
  const thisLabel = `v${version}`;
  const otherIsNewer = compareWith === "current" || BigInt(compareWith || "0") > BigInt(version);
  return (
    <section className={styles.versionDetail} aria-labelledby={`${uid}-title`} data-testid="version-detail">
      <div className={styles.sectionHead}>
        <h3 id={`${uid}-title`} style={{ margin: 0 }}>
          Version {version}
          {isCurrent ? " (current)" : ""}
        </h3>
        {!isCurrent && (
          <button
            type="button"
            className="button small"
            onClick={onRestore}
            disabled={!mayRestore}
            title={mayRestore ? undefined : roleReason("admin", "restore a version")}
          >
            Restore version {version}
          </button>
        )}
      </div>
      <div className={styles.actions} style={{ margin: "0.5rem 0" }}>
        <fieldset className={styles.actions} style={{ border: 0, padding: 0, margin: 0 }}>
          <legend className="visually-hidden">Show</legend>
          <label>
            <input type="radio" checked={mode === "diff"} onChange={() => setMode("diff")} /> Changes
          </label>
          <label>
            <input type="radio" checked={mode === "config"} onChange={() => setMode("config")} /> Whole config
            (secrets masked)
          </label>
        </fieldset>
        {mode === "diff" && (
          <label>
            Compare with{" "}
            <select value={compareWith} onChange={(event) => setCompareWith(event.target.value)}>
              {!isCurrent && <option value="current">the current config (v{current.version})</option>}
              {isCurrent && choices.length === 0 && <option value="">no other version on this page</option>}
              {choices.map((v) => (
                <option key={v.version} value={v.version}>
                  v{v.version}
                  {v.comment ? ` — ${v.comment.slice(0, 60)}` : ""}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {mode === "config" ? (
        <pre className={styles.pre} data-testid="version-config">
          {pretty(shown.data.config)}
        </pre>
      ) : other.isError ? (
        <ErrorState error={other.error} what={`version ${compareWith}`} onRetry={() => other.refetch()} />
      ) : otherText === null ? (
        compareWith ? (
          <LoadingState label={`Loading version ${compareWith}`} rows={3} />
        ) : null
      ) : otherIsNewer ? (
        <VersionDiff
          before={pretty(shown.data.config)}
          after={otherText}
          beforeLabel={thisLabel}
          afterLabel={otherLabel}
        />
      ) : (
        <VersionDiff
          before={otherText}
          after={pretty(shown.data.config)}
          beforeLabel={otherLabel}
          afterLabel={thisLabel}
        />
      )}
    </section>
  );
}

/** The config's history, a page at a time: view any version, compare it, restore it as a new version. */
export function VersionsPanel({ current }: { current: RoutingConfigAnswer }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const before = cursors.at(-1) ?? null;
  const versions = useConfigVersions(before, PAGE);
  const restore = useRestoreVersion();
  const [selected, setSelected] = useState<string | null>(null);
  const [restoring, setRestoring] = useState<string | null>(null);
  if (versions.isPending) return <LoadingState label="Loading versions" rows={3} />;
  if (versions.isError)
    return (
      <ErrorState error={versions.error} what="the version history" onRetry={() => versions.refetch()} />
    );
  const list = versions.data.versions;
  return (
    <div>
      {restore.isSuccess && (
        <p className={styles.ok} role="status">
          Restored as version {restore.data.version}.
        </p>
      )}
      <FormError error={restore.error} />
      {list.length === 0 ? (
        <p className="muted">No saved versions: the shipped default routing is in force.</p>
      ) : (
        <ul className={styles.versions} aria-label="Config versions">
          {list.map((v) => (
            <li
              key={v.version}
              className={styles.version}
              data-testid="config-version-row"
              data-version={v.version}
              aria-current={v.version === current.version ? "true" : undefined}
            >
              <strong>v{v.version}</strong>
              {v.version === current.version && <span className={styles.flag}>current</span>}
              <Time iso={v.createdAt} />
              <span>{v.createdBy}</span>
              <span className="muted">{v.comment ?? "no comment"}</span>
              <span className={styles.nodeActions}>
                <button
                  type="button"
                  className="button small"
                  aria-pressed={selected === v.version}
                  onClick={() => setSelected(selected === v.version ? null : v.version)}
                  aria-label={`View version ${v.version}`}
                >
                  View
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {(cursors.length > 1 || versions.data.nextCursor) && (
        <Pager
          hasPrevious={cursors.length > 1}
          nextCursor={versions.data.nextCursor}
          onFirst={() => setCursors([null])}
          onNext={(cursor) => setCursors((all) => [...all, cursor])}
          shown={list.length}
          busy={versions.isFetching}
        />
      )}
      {selected && (
        <VersionDetail
          key={`${selected}:${current.version}`}
          version={selected}
          current={current}
          others={list}
          onRestore={() => setRestoring(selected)}
        />
      )}
      {restoring && (
        <ConfirmDialog
          title={`Restore version ${restoring}?`}
          confirmLabel={`Restore version ${restoring}`}
          busy={restore.isPending}
          onCancel={() => setRestoring(null)}
          onConfirm={() => {
            const version = restoring;
            setRestoring(null);
            restore.mutate({ version, baseVersion: current.version });
          }}
        >
          <p style={{ margin: 0 }}>
            Its config is saved as a new version with the comment “Restore version {restoring}”, with the
            secrets it stored. Firing alerts are routed again under it.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
