import { describe, expect, it } from "vitest";
import {
  assigneeChannel,
  maskNotificationTarget,
  parseStoredTarget,
  ZNotificationTargetBody,
} from "@/lib/triage/assignee-target";

describe("a user's own notification target", () => {
  it("masks everything past the origin: a Slack URL's path is its credential", () => {
    const slack = { kind: "slack" as const, url: "https://hooks.slack.com/services/T0/B0/XYZSECRET" };
    const shown = maskNotificationTarget(slack);
    expect(shown).toEqual({ kind: "slack", url: "https://hooks.slack.com/••••••", signed: false });
    expect(JSON.stringify(shown)).not.toContain("XYZSECRET");
  });

  it("a webhook with a secret is signed; one without goes out unsigned (an empty key)", () => {
    const signed = { kind: "webhook" as const, url: "https://me.example/hook", secret: "0123456789abcdef" };
    expect(maskNotificationTarget(signed).signed).toBe(true);
    expect(assigneeChannel("ana", signed)).toEqual({
      name: "assignee:ana",
      ownerRole: "assignee",
      targets: [{ type: "webhook", url: "https://me.example/hook", secret: "0123456789abcdef" }],
    });
    const unsigned = assigneeChannel("ana", { kind: "webhook", url: "https://me.example/hook" });
    expect(unsigned.targets).toEqual([{ type: "webhook", url: "https://me.example/hook", secret: "" }]);
  });

  it.each([
    [{ kind: "email", url: "https://x.example" }, "kind"],
    [{ kind: "webhook", url: "javascript:alert(1)" }, "url"],
    [{ kind: "slack", url: "https://x.example", extra: 1 }, ""],
    ["https://x.example", ""],
  ])("refuses %j at its field", (body, field) => {
    const parsed = ZNotificationTargetBody.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path.join(".")).toBe(field);
  });

  it("a stored value that no longer parses reads as no target", () => {
    expect(parseStoredTarget({ kind: "pager", url: "https://x.example" })).toBeNull();
    expect(parseStoredTarget(null)).toBeNull();
  });
});
