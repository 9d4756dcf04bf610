import { describe, expect, it } from "vitest";
import type { AuditEventView } from "@/lib/audit/audit-view";
import { auditFieldChanges } from "@/lib/audit/audit-view";
import { targetHref, targetLabel } from "@/components/audit/audit-links";

describe("auditFieldChanges", () => {
  it("lists every field of either side once, marking only those whose value differs", () => {
    const changes = auditFieldChanges(
      { comment: "a", matchers: ["x=1"], expiredAt: null },
      { comment: "b", matchers: ["x=1"], expiredAt: null, endsAt: "2026-12-02T00:00:00.000Z" },
    );
    expect(changes).toEqual([
      { field: "comment", before: "a", after: "b", changed: true },
      { field: "matchers", before: ["x=1"], after: ["x=1"], changed: false },
      { field: "expiredAt", before: null, after: null, changed: false },
      { field: "endsAt", before: undefined, after: "2026-12-02T00:00:00.000Z", changed: true },
    ]);
  });

  it("compares nested values by content, and reads a missing side as absent", () => {
    expect(auditFieldChanges({ config: { a: [1, 2] } }, { config: { a: [1, 2] } })[0]?.changed).toBe(false);
    expect(auditFieldChanges({ config: { a: [1, 2] } }, { config: { a: [2, 1] } })[0]?.changed).toBe(true);
    expect(auditFieldChanges(null, { name: "k" })).toEqual([
      { field: "name", before: undefined, after: "k", changed: true },
    ]);
    expect(auditFieldChanges(null, null)).toEqual([]);
    expect(auditFieldChanges("old", "new")).toEqual([
      { field: "value", before: "old", after: "new", changed: true },
    ]);
  });
});

describe("audit target links", () => {
  const event = (targetType: AuditEventView["targetType"], targetId: string, after: unknown = null) =>
    ({
      id: "1",
      at: "",
      actor: "a",
      actorUserId: null,
      action: "key.create",
      targetType,
      targetId,
      before: null,
      after,
    }) as AuditEventView;

  it("links a target to the page that shows it, an alert to its chain", () => {
    expect(targetHref(event("chain", "chain:a/b"))).toBe("/chains/chain%3Aa%2Fb");
    expect(targetHref(event("alert", "00ff", { chainId: "c 1" }))).toBe("/chains/c%201");
    expect(targetHref(event("alert", "00ff"))).toBeNull();
    expect(targetHref(event("routing_config", "7"))).toBe("/routing#versions");
    expect(targetHref(event("user", "u"))).toBeNull();
  });

  it("names a routing version and a key by what a person recognises", () => {
    expect(targetLabel(event("routing_config", "7"))).toBe("routing config v7");
    expect(targetLabel(event("key", "uuid", { name: "ci" }))).toBe("key ci");
    expect(targetLabel(event("silence", "s1"))).toBe("silence s1");
  });
});
