import { describe, expect, it } from "vitest";
import { copyField, copyRow, copyTextArray } from "@/lib/server/db/copy-text";

describe("COPY text format", () => {
  it("writes null as \\N and leaves plain text, numbers and booleans as they are", () => {
    expect([null, undefined, "plain", 42, true, false].map(copyField)).toEqual([
      "\\N",
      "\\N",
      "plain",
      "42",
      "true",
      "false",
    ]);
  });

  it("escapes the backslash and the characters that end a field or a row", () => {
    expect(copyField('a\\b\tc\nd\re "q"')).toBe('a\\\\b\\tc\\nd\\re "q"');
    // A value that reads as \N must stay text, not become null.
    expect(copyField("\\N")).toBe("\\\\N");
  });

  it("quotes every array element, escaping quotes and backslashes inside the quotes", () => {
    expect(copyTextArray([])).toBe("{}");
    expect(copyTextArray(["outcome.absent", "a,b", "{x}", "NULL"])).toBe(
      '{"outcome.absent","a,b","{x}","NULL"}',
    );
    // The array literal's own backslashes are then escaped for COPY.
    expect(copyTextArray(['say "hi"', "back\\slash"])).toBe('{"say \\\\"hi\\\\"","back\\\\\\\\slash"}');
  });

  it("joins a row's fields with tabs and ends it with a newline", () => {
    expect(copyRow(["1", "\\N", "x"])).toBe("1\t\\N\tx\n");
  });
});
