import { describe, expect, it } from "vitest";
import {
  applyTriageAction,
  type TriageDecision,
  type TriageItemState,
  UNTOUCHED_ITEM,
} from "@/lib/triage/transitions";

const now = new Date("2026-11-30T12:00:00.000Z");
const acknowledged: TriageItemState = {
  ...UNTOUCHED_ITEM,
  status: "acknowledged",
  acknowledgedAt: now,
  acknowledgedBy: "ana",
};
const resolved: TriageItemState = { ...acknowledged, status: "resolved", resolvedAt: now, resolvedBy: "ana" };

type Case = [string, TriageItemState, TriageDecision, Partial<TriageItemState> | "refused"];
const q = "false_success" as const;
const ana = { id: "8d0f3b7e-5b7c-4c8e-9a51-7f7d3c1e2a10", username: "ana", displayName: null };
const bo = { id: "2c6c0f53-0e0a-4f7e-8d8f-4b1f4f9d7c21", username: "bo", displayName: "Bo" };

// One row per transition of the triage workflow, refusals included (no-ops would make the audit trail lie).
const cases: Case[] = [
  [
    "acknowledge an open item",
    UNTOUCHED_ITEM,
    { action: "acknowledge", queue: q },
    { status: "acknowledged", acknowledgedBy: "bo" },
  ],
  ["acknowledge twice", acknowledged, { action: "acknowledge", queue: q }, "refused"],
  ["acknowledge a resolved item", resolved, { action: "acknowledge", queue: q }, "refused"],
  [
    "assign a user",
    acknowledged,
    { action: "assign", queue: q, assignee: ana },
    { assignee: ana, status: "acknowledged" },
  ],
  [
    "assign the same user",
    { ...acknowledged, assignee: ana },
    { action: "assign", queue: q, assignee: ana },
    "refused",
  ],
  [
    "reassign",
    { ...acknowledged, assignee: ana },
    { action: "assign", queue: q, assignee: bo },
    { assignee: bo },
  ],
  ["unassign", { ...acknowledged, assignee: ana }, { action: "unassign", queue: q }, { assignee: null }],
  ["unassign nobody", acknowledged, { action: "unassign", queue: q }, "refused"],
  [
    "note at any status",
    resolved,
    { action: "note", queue: q, note: "later finding" },
    { status: "resolved" },
  ],
  [
    "resolve an open item directly",
    UNTOUCHED_ITEM,
    { action: "resolve", queue: q },
    { status: "resolved", resolvedBy: "bo" },
  ],
  ["resolve twice", resolved, { action: "resolve", queue: q }, "refused"],
  [
    "reopen a resolved item",
    resolved,
    { action: "reopen", queue: q },
    { status: "open", resolvedAt: null, resolvedBy: null },
  ],
  ["reopen an open item", UNTOUCHED_ITEM, { action: "reopen", queue: q }, "refused"],
];

describe("triage transitions", () => {
  it.each(cases)("%s", (_, current, body, expected) => {
    const outcome = applyTriageAction(current, body, "bo", now);
    if (expected === "refused") {
      expect(outcome).toEqual({ refused: expect.any(String) });
      return;
    }
    if ("refused" in outcome) throw new Error(`refused: ${outcome.refused}`);
    expect(outcome.next).toMatchObject(expected);
    expect(outcome.event.action).toBe(body.action);
  });

  it("records the assignees by name in the trail's event", () => {
    const outcome = applyTriageAction(
      { ...acknowledged, assignee: ana },
      { action: "assign", queue: q, assignee: bo },
      "bo",
      now,
    );
    if ("refused" in outcome) throw new Error(outcome.refused);
    expect(outcome.event.data).toEqual({ from: "ana", to: "bo" });
  });
});
