"use client";

import { useEffect, useRef, useState } from "react";
import type { TRouteConfig } from "@/lib/routing/config";
import {
  canMoveRoute,
  isMisplacedCatchAll,
  type RouteFields,
  type RoutePath,
  routeLabel,
} from "@/lib/routing/route-edit";
import { ROOT_TIMING_MS } from "@/lib/routing/validate";
import { formatDuration } from "@/lib/routing/duration";
import { FormError } from "./FormError";
import { RouteDeleteDialog } from "./RouteDeleteDialog";
import { RouteForm } from "./RouteForm";
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

/** What the tree can change; absent: the tree is read-only. Each call saves one new config version. */
export type RouteTreeActions = {
  edit: (path: RoutePath, fields: RouteFields, comment: string) => Promise<unknown>;
  move: (path: RoutePath, delta: -1 | 1) => Promise<unknown>;
  remove: (path: RoutePath) => Promise<unknown>;
};

type NodeContext = {
  actions?: RouteTreeActions;
  channels: string[];
  busy: boolean;
  editing: string | null;
  setEditing: (key: string | null) => void;
  askDelete: (path: RoutePath) => void;
  move: (path: RoutePath, delta: -1 | 1) => void;
  /** After a move, the button that moved the route keeps the focus on its new row. */
  focus: { key: string; delta: -1 | 1; seq: number } | null;
  root: TRouteConfig;
};

export const routeJsonPath = (path: RoutePath) => `$.route${path.map((i) => `.routes[${i}]`).join("")}`;
const keyOf = (path: RoutePath) => path.join(".");

function MoveButton({
  path,
  delta,
  label,
  ctx,
}: {
  path: RoutePath;
  delta: -1 | 1;
  label: string;
  ctx: NodeContext;
}) {
  const ref = useRef<HTMLButtonElement>(null);
  // The move's sequence number, when this button moved the route here: each move focuses once, as soon as the
  // button is enabled again (the save that moved it may still be settling when the new row first renders).
  const focusSeq = ctx.focus?.key === keyOf(path) && ctx.focus.delta === delta ? ctx.focus.seq : null;
  const disabled = ctx.busy || !canMoveRoute(ctx.root, path, delta);
  const focusedSeq = useRef<number | null>(null);
  useEffect(() => {
    if (focusSeq === null || disabled || focusedSeq.current === focusSeq) return;
    focusedSeq.current = focusSeq;
    ref.current?.focus();
  }, [focusSeq, disabled]);
  const direction = delta < 0 ? "up" : "down";
  return (
    <button
      ref={ref}
      type="button"
      className="button small"
      disabled={disabled}
      onClick={() => ctx.move(path, delta)}
      aria-label={`Move route ${label} ${direction}`}
    >
      {delta < 0 ? "↑ Move up" : "↓ Move down"}
    </button>
  );
}

function RouteNode({
  route,
  path,
  parent,
  siblings,
  ctx,
}: {
  route: TRouteConfig;
  path: RoutePath;
  parent: Inherited;
  siblings: number;
  ctx: NodeContext;
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
  const label = routeLabel(route, path);
  const index = path.at(-1) ?? 0;
  const misplaced = !isRoot && isMisplacedCatchAll(route.matchers ?? [], index, siblings);
  const editing = ctx.editing === keyOf(path);
  const { routes: _children, ...own } = route;
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
          {misplaced && (
            <span className={styles.warning} data-testid="misplaced-catch-all">
              catches everything: the routes after it never match
            </span>
          )}
          {ctx.actions && !isRoot && (
            <span className={styles.nodeActions}>
              <button
                type="button"
                className="button small"
                disabled={ctx.busy}
                aria-expanded={editing}
                onClick={() => ctx.setEditing(editing ? null : keyOf(path))}
                aria-label={`Edit route ${label}`}
              >
                Edit
              </button>
              <MoveButton path={path} delta={-1} label={label} ctx={ctx} />
              <MoveButton path={path} delta={1} label={label} ctx={ctx} />
              <button
                type="button"
                className="button small danger"
                disabled={ctx.busy}
                onClick={() => ctx.askDelete(path)}
                aria-label={`Delete route ${label}`}
              >
                Delete
              </button>
            </span>
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
        {editing && ctx.actions && (
          <RouteForm
            label={`Edit route ${label}`}
            initial={own}
            channels={ctx.channels}
            jsonPath={routeJsonPath(path)}
            submitLabel="Save route"
            busy={ctx.busy}
            inheritReceiver
            isMisplacedCatchAll={index < siblings - 1}
            onCancel={() => ctx.setEditing(null)}
            onSubmit={(fields, comment) =>
              (ctx.actions as RouteTreeActions).edit(path, fields, comment).then(() => ctx.setEditing(null))
            }
          />
        )}
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
              siblings={route.routes?.length ?? 0}
              ctx={ctx}
            />
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * The route tree: first matching child wins unless it says `continue`; unset options come from the parent. With
 * `actions`, each route can be edited in place, moved among its siblings and deleted (after a confirmation that
 * names its subroutes).
 */
export function RouteTree({
  root,
  actions,
  channels = [],
  busy = false,
}: {
  root: TRouteConfig;
  actions?: RouteTreeActions;
  channels?: string[];
  busy?: boolean;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<RoutePath | null>(null);
  const [focus, setFocus] = useState<NodeContext["focus"]>(null);
  const [error, setError] = useState<unknown>(null);
  const run = (work: Promise<unknown>) =>
    work.then(
      () => true,
      (refused: unknown) => {
        setError(refused);
        return false;
      },
    );
  const ctx: NodeContext = {
    actions,
    channels,
    busy,
    editing,
    setEditing,
    focus,
    root,
    askDelete: (path) => {
      setError(null);
      setDeleting(path);
    },
    move: (path, delta) => {
      if (!actions) return;
      setError(null);
      setEditing(null);
      const moved = [...path.slice(0, -1), (path.at(-1) ?? 0) + delta];
      void run(actions.move(path, delta)).then(
        (ok) => ok && setFocus((last) => ({ key: keyOf(moved), delta, seq: (last?.seq ?? 0) + 1 })),
      );
    },
  };
  return (
    <>
      <FormError error={error} />
      <ul className={styles.tree} aria-label="Route tree">
        <RouteNode route={root} path={[]} parent={rootDefaults} siblings={1} ctx={ctx} />
      </ul>
      {deleting && actions && (
        <RouteDeleteDialog
          root={root}
          path={deleting}
          busy={busy}
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const path = deleting;
            setDeleting(null);
            setEditing(null);
            void run(actions.remove(path));
          }}
        />
      )}
    </>
  );
}
