import { describe, expect, it } from "vitest";
import { formatDuration, formatRelative } from "@/lib/dashboard/format";

describe("formatDuration", () => {
  it.each([
    [420, "420 ms"],
    [1_500, "1.5 s"],
    [9_949, "9.9 s"],
    [9_960, "10 s"],
    [59_400, "59 s"],
    [59_600, "1 min"],
    [179_600, "3 min"],
    [179_400, "2 min 59 s"],
    [3_599_700, "1 h"],
    [5_430_000, "1 h 31 min"],
    [86_370_000, "1.0 d"],
    [-90_000, "−1 min 30 s"],
  ])("%d ms reads %s: no part ever rounds up to 60", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("never shows 60 s or 60 min anywhere between 0 and 2 days", () => {
    for (let ms = 0; ms < 2 * 86_400_000; ms += 9_973) {
      expect(formatDuration(ms)).not.toMatch(/\b60 (s|min)\b/);
    }
  });
});

describe("formatRelative", () => {
  it("says just now within five seconds, ago for the past and in for the future", () => {
    const now = Date.parse("2026-12-02T00:00:00Z");
    expect(formatRelative("2026-12-01T23:59:58Z", now)).toBe("just now");
    expect(formatRelative("2026-12-01T23:57:00.400Z", now)).toBe("3 min ago");
    expect(formatRelative("2026-12-02T00:10:00Z", now)).toBe("in 10 min");
  });
});
