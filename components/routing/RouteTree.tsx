"use client";

import type { TRouteConfig } from "@/lib/routing/config";
import { ROOT_TIMING_MS } from "@/lib/routing/validate";
import { formatDuration } from "@/lib/routing/duration";
import styles from "./Routing.module.css";

type Inherited = {
  receiver: string;
  groupBy: string[];
  groupWait: string;
  groupInterval: string;
  repeatInterval: string;
};

const rootDefaults: Inherited = {
  receiver: "",
  groupBy: [],
  groupWait: formatDuration(ROOT_TIMING_MS.groupWait),
  groupInterval: formatDuration(ROOT_TIMING_MS.groupInterval),
  repeatInterval: formatDuration(ROOT_TIMING_MS.repeatInterval),
};

/** The value a route sets, or its parent's shown faded: inheritance is visible at a glance. */
function Own({ value, inherited }: { value: string | undefined; inherited: string }) {
  return value !== undefined ? <span>{value}</span> : <span className={styles.inherited}>{inherited}</span>;
}

function RouteNode({
  route,
  path,
  parent,
  onDelete,
  busy,
}: {
  route: TRouteConfig;
  path: number[];
  parent: Inherited;
  onDelete?: (path: number[]) => void;
  busy: boolean;
}) {
  const here: Inherited = {
    receiver: route.receiver ?? parent.receiver,
    groupBy: route.groupBy ?? parent.groupBy,
    groupWait: route.groupWait ?? parent.groupWait,
    groupInterval: route.groupInterval ?? parent.groupInterval,
    repeatInterval: route.repeatInterval ?? parent.repeatInterval,
  };
  const isRoot = path.length === 0;
  const name = route.name ?? (isRoot ? "root" : "(unnamed route)");
  return (
    <li>
      <div className={styles.node} data-testid="route-node" data-route-name={name}>
        <div className={styles.nodeHead}>
          <span className={styles.nodeName}>{name}</span>
          <span className={styles.chips}>
            {(route.matchers ?? []).length === 0 ? (
              <span className="muted">{isRoot ? "every alert (default)" : "matches everything"}</span>
            ) : (
              route.matchers?.map((m) => (
                <code key={m} className={styles.chip}>
                  {m}
                </code>
              ))
            )}
          </span>
          <span className={styles.arrow} aria-hidden="true">
            →
          </span>
          <strong>
            <Own value={route.receiver} inherited={here.receiver} />
          </strong>
          {route.continue && <span className={styles.flag}>continue</span>}
          {route.severity && <span className={styles.flag}>severity {route.severity}</span>}
          {route.delay && (
            <span className={styles.flag}>
              hold {route.delay}
              {route.confirmOnNextRecord ? " or until the next record confirms" : ""}
            </span>
          )}
          {onDelete && !isRoot && (
            <button
              type="button"
              className="button small danger"
              disabled={busy}
              onClick={() => onDelete(path)}
              aria-label={`Delete route ${name}`}
            >
              Delete
            </button>
          )}
        </div>
        <div className={styles.timing}>
          group by{" "}
          <Own
            value={route.groupBy?.join(", ") || (route.groupBy ? "nothing" : undefined)}
            inherited={here.groupBy.join(", ") || "nothing"}
          />{" "}
          · wait <Own value={route.groupWait} inherited={here.groupWait} /> · interval{" "}
          <Own value={route.groupInterval} inherited={here.groupInterval} /> · repeat{" "}
          <Own value={route.repeatInterval} inherited={here.repeatInterval} />
        </div>
      </div>
      {(route.routes ?? []).length > 0 && (
        <ul>
          {route.routes?.map((child, i) => (
            <RouteNode
              // biome-ignore lint/suspicious/noArrayIndexKey: a route's position is its identity (its JSON path)
              key={i}
              route={child}
              path={[...path, i]}
              parent={here}
              onDelete={onDelete}
              busy={busy}
            />
          ))}
        </ul>
      )}
    </li>
  );
}

/** The route tree: first matching child wins unless it says `continue`; unset options come from the parent. */
export function RouteTree({
  root,
  onDelete,
  busy = false,
}: {
  root: TRouteConfig;
  onDelete?: (path: number[]) => void;
  busy?: boolean;
}) {
  return (
    <ul className={styles.tree} aria-label="Route tree">
      <RouteNode route={root} path={[]} parent={rootDefaults} onDelete={onDelete} busy={busy} />
    </ul>
  );
}
