"use client";

import { useId, useState } from "react";
import type { TRouteConfig, TRoutingConfig } from "@/lib/routing/config";
import { isMisplacedCatchAll, type RouteFields, routeLabel } from "@/lib/routing/route-edit";
import { RouteForm } from "./RouteForm";
import { routeJsonPath } from "./RouteTree";

/**
 * Adds a child route under the root at a chosen position: routes are tried in order and the first match wins, so a
 * new, more specific route usually belongs before the catch-alls, and a route without matchers only at the end.
 */
export function AddRouteForm({
  config,
  onAdd,
  busy,
}: {
  config: TRoutingConfig;
  onAdd: (route: TRouteConfig, index: number, comment: string) => Promise<unknown>;
  busy: boolean;
}) {
  const uid = useId();
  const siblings = config.route.routes ?? [];
  // "last" stays last when someone else adds a route meanwhile; a number is a place before a sibling.
  const [position, setPosition] = useState<number | "last">(0);
  const index = position === "last" ? siblings.length : Math.min(position, siblings.length);
  const initial: RouteFields = { receiver: config.channels[0]?.name ?? "" };
  return (
    // A new first channel (the default receiver) starts the form again; a channel added after it by someone else
    // must not, or what the operator was typing is lost (an e2e run added a route without the name typed into it).
    <RouteForm
      key={initial.receiver}
      label="Add a route"
      initial={initial}
      channels={config.channels.map((c) => c.name)}
      jsonPath={routeJsonPath([index])}
      submitLabel="Add route"
      busy={busy}
      inheritReceiver={false}
      warnWhenPristine={false}
      // After the insert there is one more sibling: the new route is last only at the end.
      isMisplacedCatchAll={isMisplacedCatchAll([], index, siblings.length + 1)}
      onSubmit={(fields, comment) => onAdd(fields, index, comment)}
    >
      <div className="field">
        <label htmlFor={`${uid}-position`}>Position</label>
        <select
          id={`${uid}-position`}
          value={index}
          onChange={(event) => {
            const value = Number(event.target.value);
            setPosition(value >= siblings.length ? "last" : value);
          }}
        >
          {siblings.map((route, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a position among siblings is the option's value
            <option key={i} value={i}>
              {i === 0 ? "first" : `${i + 1}.`} — before {routeLabel(route, [i])}
            </option>
          ))}
          <option value={siblings.length}>last — after every route</option>
        </select>
      </div>
    </RouteForm>
  );
}
