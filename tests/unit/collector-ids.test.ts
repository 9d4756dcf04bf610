// The collector refuses, at the producer, the ids the server would refuse: "." and ".." cannot appear in a URL.
import { describe, expect, it } from "vitest";
import { assertId } from "@/packages/collector/src/records";

describe("assertId", () => {
  it.each([".", ".."])("refuses %j", (id) => {
    expect(() => assertId(id, "chainId")).toThrow(TypeError);
  });

  it.each(["...", "chain:a.b", "a..b"])("accepts %j", (id) => {
    expect(assertId(id, "chainId")).toBe(id);
  });
});
