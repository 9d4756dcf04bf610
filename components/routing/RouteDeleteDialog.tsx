"use client";

import type { TRouteConfig } from "@/lib/routing/config";
import { type RoutePath, routeAt, routeLabel, subrouteLabels } from "@/lib/routing/route-edit";
import { ConfirmDialog } from "./ConfirmDialog";

/** "Delete route X?", naming every subroute that goes with it. */
export function RouteDeleteDialog({
  root,
  path,
  busy,
  onConfirm,
  onCancel,
}: {
  root: TRouteConfig;
  path: RoutePath;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const doomed = routeAt(root, path);
  if (!doomed) return null;
  const children = subrouteLabels(doomed, path);
  return (
    <ConfirmDialog
      title={`Delete route "${routeLabel(doomed, path)}"?`}
      confirmLabel="Delete route"
      danger
      busy={busy}
      onCancel={onCancel}
      onConfirm={onConfirm}
    >
      {children.length === 0 ? (
        <p style={{ margin: 0 }}>It has no subroutes. The alerts it routes go to the next matching route.</p>
      ) : (
        <>
          <p style={{ margin: 0 }}>
            Its {children.length} subroute{children.length === 1 ? " is" : "s are"} deleted with it:
          </p>
          <ul>
            {children.map((child, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: labels may repeat; the order is the tree's
              <li key={i}>{child}</li>
            ))}
          </ul>
        </>
      )}
      <p style={{ margin: "0.5rem 0 0" }} className="muted">
        Saved as a new config version: it can be restored from the history.
      </p>
    </ConfirmDialog>
  );
}
