// Slack-compatible incoming-webhook message: `text` for notifications and clients without blocks,
// `blocks` for the channel. Built from the webhook view so both always say the same thing.
import type { LinkBuilder, Notification } from "./payload";
import { buildWebhookBody, type WebhookAlert } from "./payload-webhook";

/** Slack allows 50 blocks; a group larger than this is summarised with a "more" line. */
export const SLACK_MAX_ALERTS = 10;

export interface SlackMessage {
  text: string;
  blocks: Array<
    | { type: "header"; text: { type: "plain_text"; text: string } }
    | { type: "section"; text: { type: "mrkdwn"; text: string } }
    | { type: "context"; elements: Array<{ type: "mrkdwn"; text: string }> }
  >;
}

// Slack mrkdwn control characters; everything we print comes from evidence, so escape it all.
const esc = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function alertLine(a: WebhookAlert): string {
  const where = [a.server && `server ${a.server}`, a.tool && `tool ${a.tool}`].filter(Boolean).join(", ");
  const lines = [
    `*${a.status === "resolved" ? "RESOLVED" : a.severity.toUpperCase()}* \`${a.state}\`${where ? ` on ${esc(where)}` : ""}` +
      (a.shadowedBy ? ` (behind ${a.shadowedBy})` : ""),
    `${esc(a.reasons.join(", "))} — chain <${a.links.chain}|${esc(a.chainId)}>`,
  ];
  if (a.status === "firing" && a.guidance) lines.push(`_${esc(a.guidance)}_`);
  if (a.links.reconcile) lines.push(`<${a.links.reconcile}|Reconcile>`);
  return clip(lines.join("\n"), 2900);
}

export function buildSlackMessage(notification: Notification, links: LinkBuilder): SlackMessage {
  const body = buildWebhookBody(notification, links);
  const firing = body.alerts.filter((a) => a.status === "firing").length;
  const resolved = body.alerts.length - firing;
  const states = [...new Set(body.alerts.map((a) => a.state))].join(", ");
  const head =
    body.status === "firing"
      ? `[FIRING:${firing}${resolved ? ` RESOLVED:${resolved}` : ""}] ${states} (${body.severity})`
      : `[RESOLVED:${resolved}] ${states}`;
  const shown = body.alerts.slice(0, SLACK_MAX_ALERTS);
  const more = body.alerts.length - shown.length;
  return {
    text: clip(`${head} → ${body.receiver}`, 3000),
    blocks: [
      { type: "header", text: { type: "plain_text", text: clip(head, 150) } },
      ...shown.map((a) => ({
        type: "section" as const,
        text: { type: "mrkdwn" as const, text: alertLine(a) },
      })),
      ...(more > 0
        ? [{ type: "section" as const, text: { type: "mrkdwn" as const, text: `…and ${more} more` } }]
        : []),
      {
        type: "context",
        elements: [{ type: "mrkdwn", text: esc(`Receipt → ${body.receiver} · group ${body.groupKey}`) }],
      },
    ],
  };
}
