"use client";

import { type ReactNode, useState } from "react";
import type { TChannel, TRouteConfig, TTarget } from "@/lib/routing/config";
import {
  deleteRoute,
  editRoute,
  insertRoute,
  moveRoute,
  routeAt,
  routeLabel,
  subrouteLabels,
} from "@/lib/routing/route-edit";
import { RoleFieldset } from "../auth/RoleGate";
import { ErrorState, LoadingState } from "../ui/StatusViews";
import { AddRouteForm } from "./AddRouteForm";
import { ChannelsPanel } from "./ChannelsPanel";
import { ConfigImportPanel } from "./ConfigImportPanel";
import { DeliveryLog } from "./DeliveryLog";
import { type InhibitActions, InhibitRules } from "./InhibitRules";
import { RouteTestPanel } from "./RouteTestPanel";
import { RouteTree, type RouteTreeActions } from "./RouteTree";
import { SilencesPanel } from "./SilencesPanel";
import { useConfigEdit } from "./use-config-edit";
import { VersionsPanel } from "./VersionsPanel";
import styles from "./Routing.module.css";

const SECTIONS = [
  ["tree", "Route tree"],
  ["channels", "Channels"],
  ["silences", "Silences"],
  ["inhibition", "Inhibition"],
  ["route-test", "Route test"],
  ["deliveries", "Delivery log"],
  ["versions", "Versions"],
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

/** A version comment: what the person wrote, else what the page did. */
const commentOr = (written: string, done: string) => written || done;

/** The routing page: who gets which alert, how it is grouped and held, and what was actually delivered. */
export function RoutingView() {
  const { current, save, edit } = useConfigEdit();
  // Each area shows its own refusals: a refused route edit is not the channels panel's problem.
  const [channelError, setChannelError] = useState<unknown>(null);
  if (current.isPending) return <LoadingState label="Loading routing" rows={8} />;
  if (current.isError)
    return <ErrorState error={current.error} what="the routing config" onRetry={() => current.refetch()} />;
  const { config, version, isDefault } = current.data;
  const busy = save.isPending;
  const channelEdit = (comment: string, change: Parameters<typeof edit>[1]) => {
    setChannelError(null);
    return edit(comment, change).catch((refused: unknown) => {
      setChannelError(refused);
      throw refused;
    });
  };
  const addRoute = (route: TRouteConfig, index: number, comment: string) =>
    edit(commentOr(comment, `add route ${routeLabel(route, [index])} at position ${index + 1}`), (draft) => {
      draft.route = insertRoute(draft.route, [], index, route);
    });
  const routeActions: RouteTreeActions = {
    edit: (path, fields, comment) =>
      edit(commentOr(comment, `edit route ${routeLabel({ ...fields }, path)}`), (draft) => {
        draft.route = editRoute(draft.route, path, fields);
      }),
    move: (path, delta) => {
      const label = routeLabel(routeAt(config.route, path) ?? {}, path);
      return edit(`move route ${label} ${delta < 0 ? "up" : "down"}`, (draft) => {
        draft.route = moveRoute(draft.route, path, delta);
      });
    },
    remove: (path) => {
      const route = routeAt(config.route, path) ?? {};
      const children = subrouteLabels(route, path).length;
      const also = children > 0 ? ` and its ${children} subroute${children === 1 ? "" : "s"}` : "";
      return edit(`delete route ${routeLabel(route, path)}${also}`, (draft) => {
        draft.route = deleteRoute(draft.route, path);
      });
    },
  };
  const inhibitActions: InhibitActions = {
    save: (index, rule, comment) =>
      edit(
        commentOr(comment, `${index === null ? "add" : "edit"} inhibition rule ${rule.name ?? ""}`.trim()),
        (draft) => {
          if (index === null) draft.inhibitRules.push(rule);
          else draft.inhibitRules[index] = rule;
        },
      ),
    remove: (index) =>
      edit(`delete inhibition rule ${config.inhibitRules[index]?.name ?? index + 1}`, (draft) => {
        draft.inhibitRules.splice(index, 1);
      }),
  };
  const addTarget = (channel: string, target: TTarget) =>
    channelEdit(`add ${target.type} target to ${channel}`, (draft) => {
      draft.channels.find((c) => c.name === channel)?.targets.push(target);
    });
  const addChannel = (channel: TChannel) =>
    channelEdit(`add channel ${channel.name}`, (d) => void d.channels.push(channel));

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
        <RoleFieldset needs="admin" doing="change the routing config">
          <RouteTree
            root={config.route}
            busy={busy}
            channels={config.channels.map((c) => c.name)}
            actions={routeActions}
          />
          <AddRouteForm config={config} onAdd={addRoute} busy={busy} />
        </RoleFieldset>
      </Section>
      <Section
        id="channels"
        title="Channels and targets"
        intro="Secrets are masked; they are kept when you save."
      >
        <RoleFieldset needs="admin" doing="change channels and send test notifications">
          <ChannelsPanel
            channels={config.channels}
            busy={busy}
            error={channelError}
            onAddTarget={addTarget}
            onAddChannel={addChannel}
            onRemoveTarget={(channel, index) =>
              channelEdit(`remove a target of ${channel}`, (draft) => {
                draft.channels.find((c) => c.name === channel)?.targets.splice(index, 1);
              }).catch(() => undefined)
            }
          />
        </RoleFieldset>
      </Section>
      <Section id="silences" title="Silences">
        <RoleFieldset needs="responder" doing="create and expire silences">
          <SilencesPanel />
        </RoleFieldset>
      </Section>
      <Section id="inhibition" title="Inhibition rules">
        <RoleFieldset needs="admin" doing="change the inhibition rules">
          <InhibitRules rules={config.inhibitRules} actions={inhibitActions} busy={busy} />
        </RoleFieldset>
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
      <Section
        id="versions"
        title="Versions"
        intro="Every save is a version: view it (secrets masked), compare it, restore it as a new version."
      >
        <VersionsPanel current={current.data} />
      </Section>
      <Section id="json" title="Import / export">
        <RoleFieldset needs="admin" doing="apply a config (the download is open to all)">
          <ConfigImportPanel current={current.data} />
        </RoleFieldset>
      </Section>
    </div>
  );
}
