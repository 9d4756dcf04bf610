import { describe, expect, it } from "vitest";
import type { TriageActionBody } from "@/lib/triage/schemas";
import { applyTriageAction, type TriageItemState, UNTOUCHED_ITEM } from "@/lib/triage/transitions";

const now = new Date("2026-11-30T12:00:00.000Z");
const acknowledged: TriageItemState = {
  ...UNTOUCHED_ITEM,
  status: "acknowledged",
  acknowledgedAt: now,
  acknowledgedBy: "ana",
};
const resolved: TriageItemState = { ...acknowledged, status: "resolved", resolvedAt: now, resolvedBy: "ana" };

type Case = [string, TriageItemState, TriageActionBody, Partial<TriageItemState> | "refused"];
const q = "false_success" as const;

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
    "assign an owner",
    acknowledged,
    { action: "assign", queue: q, owner: "team-a" },
    { owner: "team-a", status: "acknowledged" },
  ],
  [
    "assign the same owner",
    { ...acknowledged, owner: "team-a" },
    { action: "assign", queue: q, owner: "team-a" },
    "refused",
  ],
  [
    "unassign",
    { ...acknowledged, owner: "team-a" },
    { action: "assign", queue: q, owner: null },
    { owner: null },
  ],
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
});
