import { describe, expect, it } from "vitest";
import { partitionOfWeek, weekStart } from "@/lib/server/db/retention-partitions";

describe("weekly record partitions", () => {
  it.each([
    ["2026-11-30T00:00:00.000Z", "2026-11-30"], // a Monday at midnight starts its own week
    ["2026-12-02T13:45:00.000Z", "2026-11-30"],
    ["2026-12-06T23:59:59.999Z", "2026-11-30"], // Sunday's last millisecond is still that week
    ["2026-12-07T00:00:00.000Z", "2026-12-07"],
    ["2027-01-01T12:00:00.000Z", "2026-12-28"], // across a year
  ])("%s is in the week starting %s (UTC)", (at, monday) => {
    expect(weekStart(new Date(at)).toISOString()).toBe(`${monday}T00:00:00.000Z`);
  });

  it("names a week by its Monday and bounds it [Monday, next Monday)", () => {
    const week = partitionOfWeek(new Date("2026-11-30T00:00:00.000Z"));
    expect(week.name).toBe("health_records_w20261130");
    expect(week.to.toISOString()).toBe("2026-12-07T00:00:00.000Z");
  });
});
