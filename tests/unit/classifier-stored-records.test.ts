/**
 * Records stored before contract v1.2 cannot carry `observed` (the schema was strict), and a
 * record without it must classify exactly as it did under v1.1 — that is why stored native
 * records need no re-classification (docs/CONTRACT.md, "v1.2").
 *
 * `tests/fixtures/classify-v1-1-grid.json` holds the v1.1 classifier's results for the grid of
 * `tests/support/classifier-grid.ts`, produced by running that grid against the classifier of
 * commit 96810d6 (the last before v1.2). The current classifier must give the same results.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier/classify";
import { NOT_OBSERVED_REASON_CODES, REASON_CODES } from "@/lib/classifier/reasons";
import { STATES } from "@/lib/contract/states";
import { validateRecord } from "@/lib/contract/validate";
import { classifierGrid, compactClassification } from "@/tests/support/classifier-grid";

const golden = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, "../fixtures/classify-v1-1-grid.json"), "utf8"),
) as Record<string, string>;

describe("records without observed classify as under contract v1.1", () => {
  const grid = classifierGrid();

  it("the grid is the one the golden file was made from, and it is not vacuous", () => {
    expect(grid.map(({ name }) => name)).toEqual(Object.keys(golden));
    const results = Object.values(golden);
    expect(new Set(results.map((line) => line.split(" ")[0]))).toEqual(new Set(STATES));
    const reasons = new Set(results.flatMap((line) => (line.split(" ")[2] ?? "").split(",")));
    // Every reason code of v1.1, i.e. all but the v1.2 not-observed codes, and nothing else.
    const v11Codes = REASON_CODES.filter((code) => !NOT_OBSERVED_REASON_CODES.includes(code));
    expect(reasons).toEqual(new Set(v11Codes));
  });

  it("every grid record is valid, has no observed, and classifies exactly as v1.1 did", () => {
    const changed: string[] = [];
    for (const { name, record } of grid) {
      const validated = validateRecord(record);
      expect(validated.ok ? [] : validated.issues, name).toEqual([]);
      expect(record.observed, name).toBeUndefined();
      const now = compactClassification(classify(record));
      if (now !== golden[name]) changed.push(`${name}: ${golden[name]} → ${now}`);
    }
    expect(changed).toEqual([]);
  });
});
