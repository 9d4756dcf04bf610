/** The README's example record is what it says it is: a valid v1 record that classifies as false_success. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier/classify";
import { validateRecord } from "@/lib/contract/validate";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const block = /<!-- example-record:[^>]*-->\n```json\n([\s\S]*?)\n```/.exec(readme)?.[1];

describe("README example record", () => {
  it("is present after its marker", () => {
    expect(block).toBeDefined();
  });

  it("validates and classifies as false_success with effect.absent", () => {
    const validated = validateRecord(JSON.parse(block ?? "null"));
    if (!validated.ok) throw new Error(`README record is invalid: ${JSON.stringify(validated)}`);
    const result = classify(validated.record);
    expect(result.state).toBe("false_success");
    expect(result.reasons[0]).toBe("effect.absent");
  });
});
