import { describe, expect, it } from "vitest";
import { deliveryErrorSentence, targetHealth } from "@/lib/routing/target-health";

// A target's health as the routing page and the banner say it: the newest attempt decides failing or delivering,
// and a stored error ("HTTP 404", "ECONNREFUSED") becomes a sentence that says what to do.
const at = (minutes: number) => new Date(Date.UTC(2026, 11, 5, 12, minutes));
const base = { channel: "tool-owner", targetIndex: 0, dead: 0, retrying: 0 };

describe("targetHealth", () => {
  it("idle with nothing sent, ok when the newest attempt succeeded, failing when it failed", () => {
    expect(targetHealth({ ...base, lastSuccessAt: null, lastAttempt: null, lastFailure: null }).status).toBe(
      "idle",
    );
    const recovered = targetHealth({
      ...base,
      lastSuccessAt: at(5),
      lastAttempt: { at: at(5), error: null },
      lastFailure: { at: at(1), error: "HTTP 503" },
    });
    expect(recovered).toMatchObject({
      status: "ok",
      lastSuccessAt: at(5).toISOString(),
      lastFailure: {
        at: at(1).toISOString(),
        sentence: "The receiver failed (HTTP 503); the notification is retried.",
      },
    });
    const broken = targetHealth({
      ...base,
      dead: 2,
      lastSuccessAt: at(1),
      lastAttempt: { at: at(9), error: "ECONNREFUSED" },
      lastFailure: { at: at(9), error: "ECONNREFUSED" },
    });
    expect(broken).toMatchObject({ status: "failing", dead: 2 });
  });
});

describe("deliveryErrorSentence", () => {
  it.each([
    [
      "HTTP 401",
      "The receiver refused the credentials (HTTP 401): check the URL's token, the secret or the routing key.",
    ],
    ["HTTP 404", "Nothing at that URL (HTTP 404): the webhook was removed or the URL is wrong."],
    ["HTTP 429", "The receiver is rate-limiting these notifications (HTTP 429); they are retried."],
    ["HTTP 400", "The receiver refused the notification (HTTP 400)."],
    ["timeout after 5000 ms", "The receiver did not answer within 5 s."],
    ["EINVAL", "The URL cannot be connected to: its host is malformed or too long."],
    ["ENOTFOUND", "The host name does not resolve: check the URL's host."],
    [
      "refused by the outbound policy (10.0.0.5 is private)",
      "Receipt's outbound policy refused the address (10.0.0.5 is private); RECEIPT_OUTBOUND_ALLOW opens a private range.",
    ],
    ["set aside: body too large", "Set aside by the delivery job: body too large."],
    ["EWEIRD", "The delivery failed: EWEIRD."],
  ])("%s", (error, sentence) => {
    expect(deliveryErrorSentence(error)).toBe(sentence);
  });
});
