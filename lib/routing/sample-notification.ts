// The "send test notification" button: a synthetic, clearly labelled alert so an operator can check
// a channel's targets end to end without waiting for a real incident.
import { alertsForChain } from "./alerts";
import type { Notification } from "./payload";

export const SAMPLE_CHAIN_ID = "receipt-test-notification";

export function sampleNotification(receiver: string, atIso: string): Notification {
  const [alert] = alertsForChain({
    chainId: SAMPLE_CHAIN_ID,
    sessionId: SAMPLE_CHAIN_ID,
    state: "tool_failed",
    layer: "request",
    reasons: ["request.tool_error"],
    retrySafe: true,
    server: "receipt-test",
    tool: "test_notification",
    labels: { test: "true" },
  });
  if (!alert) throw new Error("unreachable: tool_failed always alerts");
  return {
    groupKey: `test:{receiver=${JSON.stringify(receiver)}}`,
    receiver,
    alerts: [{ alert, status: "firing", startsAt: atIso, severity: "low" }],
  };
}
