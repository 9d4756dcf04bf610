import type { AuditEventView } from "@/lib/audit/audit-view";

const chainOf = (value: unknown): string | null => {
  const chainId = (value as { chainId?: unknown } | null)?.chainId;
  return typeof chainId === "string" ? chainId : null;
};

/** Where an event's target can be seen, when a page shows it; null when none does. */
export function targetHref(event: AuditEventView): string | null {
  switch (event.targetType) {
    case "chain":
      return `/chains/${encodeURIComponent(event.targetId)}`;
    case "alert": {
      const chainId = chainOf(event.after) ?? chainOf(event.before);
      return chainId ? `/chains/${encodeURIComponent(chainId)}` : null;
    }
    case "silence":
      return "/routing#silences";
    case "routing_config":
      return "/routing#versions";
    case "delivery":
    case "receiver":
      return "/routing#deliveries";
    case "problem":
      return "/problems?status=all";
    case "key":
      return "/settings/keys";
    default:
      return null;
  }
}

/** How a target reads in a row: its type and id (a routing version as "v12"). */
export function targetLabel(event: AuditEventView): string {
  if (event.targetType === "routing_config") return `routing config v${event.targetId}`;
  const name = (event.after as { name?: unknown } | null)?.name;
  if (event.targetType === "key" && typeof name === "string") return `key ${name}`;
  return `${event.targetType.replace("_", " ")} ${event.targetId}`;
}
