"use client";

import type { ReactNode } from "react";
import type { TChannel, TRouteConfig, TTarget } from "@/lib/routing/config";
import { ErrorState, LoadingState } from "../ui/StatusViews";
import { AddRouteForm } from "./AddRouteForm";
import { ChannelsPanel } from "./ChannelsPanel";
import { ConfigJsonPanel } from "./ConfigJsonPanel";
import { DeliveryLog } from "./DeliveryLog";
import { InhibitRules } from "./InhibitRules";
import { RouteTestPanel } from "./RouteTestPanel";
import { RouteTree } from "./RouteTree";
import { SilencesPanel } from "./SilencesPanel";
import { useConfigEdit } from "./use-config-edit";
import styles from "./Routing.module.css";

const SECTIONS = [
  ["tree", "Route tree"],
  ["channels", "Channels"],
  ["silences", "Silences"],
  ["inhibition", "Inhibition"],
  ["route-test", "Route test"],
  ["deliveries", "Delivery log"],
  ["json", "Import / export"],
] as const;

function Section({
  id,
  title,
  intro,
  children,
}: {
  id: string;
  title: string;
  intro?: string;
  children: ReactNode;
}) {
  return (
    <section className="panel" id={id} aria-labelledby={`${id}-title`}>
      <div className={styles.sectionHead}>
        <h2 id={`${id}-title`}>{title}</h2>
      </div>
      {intro && (
        <p className="muted" style={{ marginTop: 0 }}>
          {intro}
        </p>
      )}
      {children}
    </section>
  );
}

/** Removes the route at `path` (child indexes from the root). */
function removeRoute(root: TRouteConfig, path: number[]) {
  const parent = path.slice(0, -1).reduce<TRouteConfig | undefined>((node, i) => node?.routes?.[i], root);
  parent?.routes?.splice(path.at(-1) ?? 0, 1);
}

/** The routing page: who gets which alert, how it is grouped and held, and what was actually delivered. */
export function RoutingView() {
  const { current, save, edit } = useConfigEdit();
  if (current.isPending) return <LoadingState label="Loading routing" rows={8} />;
  if (current.isError)
    return <ErrorState error={current.error} what="the routing config" onRetry={() => current.refetch()} />;
  const { config, version, isDefault } = current.data;
  const busy = save.isPending;
  const addRoute = (route: TRouteConfig, first: boolean) =>
    edit(`add route ${route.name ?? ""}`.trim(), (draft) => {
      draft.route.routes = first
        ? [route, ...(draft.route.routes ?? [])]
        : [...(draft.route.routes ?? []), route];
    });
  const addTarget = (channel: string, target: TTarget) =>
    edit(`add ${target.type} target to ${channel}`, (draft) => {
      draft.channels.find((c) => c.name === channel)?.targets.push(target);
    });
  const addChannel = (channel: TChannel) =>
    edit(`add channel ${channel.name}`, (d) => void d.channels.push(channel));

  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Alert routing</h1>
          <p>
            Every state reaches the channel that owns its fix — grouped, deduplicated, delivered.{" "}
            <span data-testid="config-version">
              {isDefault ? "Shipped default routing" : `Config version ${version}`}
            </span>
            .
          </p>
        </div>
        <nav aria-label="Routing sections" className={styles.sectionNav}>
          {SECTIONS.map(([id, label]) => (
            <a key={id} href={`#${id}`}>
              {label}
            </a>
          ))}
        </nav>
      </div>
      <Section
        id="tree"
        title="Route tree"
        intro="Routes are tried in order; the first match wins unless it continues."
      >
        <RouteTree
          root={config.route}
          busy={busy}
          onDelete={(path) =>
            edit("delete a route", (draft) => removeRoute(draft.route, path)).catch(() => undefined)
          }
        />
        <AddRouteForm config={config} onAdd={addRoute} busy={busy} error={save.error} />
      </Section>
      <Section
        id="channels"
        title="Channels and targets"
        intro="Secrets are masked; they are kept when you save."
      >
        <ChannelsPanel
          channels={config.channels}
          busy={busy}
          error={save.error}
          onAddTarget={addTarget}
          onAddChannel={addChannel}
          onRemoveTarget={(channel, index) =>
            edit(`remove a target of ${channel}`, (draft) => {
              draft.channels.find((c) => c.name === channel)?.targets.splice(index, 1);
            }).catch(() => undefined)
          }
        />
      </Section>
      <Section id="silences" title="Silences">
        <SilencesPanel />
      </Section>
      <Section id="inhibition" title="Inhibition rules">
        <InhibitRules rules={config.inhibitRules} />
      </Section>
      <Section id="route-test" title="Route test" intro="Which channels would this chain reach, and why?">
        <RouteTestPanel />
      </Section>
      <Section
        id="deliveries"
        title="Delivery log"
        intro="Every attempt: target, status code, latency, error."
      >
        <DeliveryLog />
      </Section>
      <Section id="json" title="Import / export">
        <ConfigJsonPanel current={current.data} />
      </Section>
    </div>
  );
}
