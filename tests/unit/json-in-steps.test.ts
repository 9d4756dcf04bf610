import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  JSON_STEP_SIZES,
  JsonTooDeepError,
  jsonParseSteps,
  MAX_JSON_DEPTH,
  parseJsonInSteps,
} from "@/lib/server/http/json-in-steps";

// Tiny steps, so every path (runs closed mid-container, containers built from parts, keys of built members) is taken
// by small documents; the defaults only change where the pieces are cut.
const TINY = { directChars: 0, directBrackets: 0, pieceChars: 8 };

type Outcome = { value: unknown } | { error: string };

function viaJsonParse(text: string): Outcome {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: (error as Error).name };
  }
}

function viaSteps(text: string, sizes = TINY): Outcome {
  try {
    const steps = jsonParseSteps(text, sizes);
    for (let step = steps.next(); ; step = steps.next()) if (step.done) return { value: step.value };
  } catch (error) {
    return { error: (error as Error).name };
  }
}

/** A document as exporters send one, about `spans` spans long. */
function otlpLike(spans: number): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: {
          attributes: [{ key: "service.name", value: { stringValue: 'agent "quoted" \\ \u00e9' } }],
        },
        scopeSpans: [
          {
            scope: { name: "mcp", version: "1.0.0" },
            spans: Array.from({ length: spans }, (_, i) => ({
              traceId: `${i}`.padStart(32, "0"),
              spanId: `${i}`.padStart(16, "0"),
              name: "tools/call echo",
              kind: 3,
              startTimeUnixNano: "1764496800000000000",
              attributes: [
                { key: "mcp.session.id", value: { stringValue: `s-${i % 7}` } },
                { key: "gen_ai.tool.call.arguments", value: { stringValue: '{"text":"hi \\"there\\""}' } },
                { key: "retries", value: { intValue: i } },
              ],
              status: {},
            })),
          },
        ],
      },
    ],
  });
}

afterEach(() => vi.restoreAllMocks());

describe("JSON parsed in steps", () => {
  it("gives what JSON.parse gives for any JSON value, pretty-printed or not", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 1, "\t", " \r\n "), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(viaSteps(text)).toEqual(viaJsonParse(text));
      }),
      { numRuns: 1500 },
    );
  });

  it("refuses what JSON.parse refuses: any text, and valid documents with one character changed", () => {
    const alphabet = fc.constantFrom(...'{}[]",:\\ \t\n0123456789-+.eEtrufalsn\u00a0\ufeffx'.split(""));
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 40 }), (text) => {
        expect(viaSteps(text)).toEqual(viaJsonParse(text));
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 12 })),
        fc.nat(),
        alphabet,
        fc.constantFrom("insert", "replace", "delete"),
        (value, at, char, how) => {
          const text = JSON.stringify(value);
          const i = at % (text.length + 1);
          const changed =
            how === "insert"
              ? text.slice(0, i) + char + text.slice(i)
              : text.slice(0, i) + (how === "replace" ? char : "") + text.slice(i + 1);
          expect(viaSteps(changed)).toEqual(viaJsonParse(changed));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("refuses each way a large container can be wrong", () => {
    const wrong = [
      "[1, 2, 3, 4, 5, 6, 7, 8, 9}",
      '{"a": 1, "b": 2, "c": 3, "d": 4]',
      "[1, 2, 3, 4, 5, 6, 7, 8, 9,]",
      '{"a": 1, "b": 2, "c": 3, "d": 4,}',
      '{"a": 1, "b" 2, "c": 3, "d": 4}',
      '{"a": 1, "b": 2, 3, "d": 4}',
      '{"a": 1, "b": 2, "c": 3 "d": 4}',
      "[1, 2, 3, 4, 5, 6, 7, 8 9]",
      "[1, 2, 3, 4, 5, 6, 7, 8, 9] x",
      "[01, 2, 3, 4, 5, 6, 7, 8, 9]",
      "[1, 2, 3, 4, 5, 6, 7, 8, 9",
      '["a\\u00zz", 2, 3, 4, 5, 6, 7, 8, 9]',
      '["a\\tb\u0001", 2, 3, 4, 5, 6, 7, 8, 9]',
      "[[1, 2, 3, 4, 5, 6, 7, 8, 9}]",
      " [1, 2, 3, 4, 5, 6, 7, 8, 9]",
    ];
    for (const text of wrong) {
      expect(viaJsonParse(text), text).toEqual({ error: "SyntaxError" });
      expect(viaSteps(text), text).toEqual({ error: "SyntaxError" });
    }
  });

  it("keeps a __proto__ key an own property, as JSON.parse does, and the last of duplicate keys", () => {
    const text = '{"__proto__": {"polluted": true}, "a": [1, 2, 3, 4, 5, 6], "a": {"b": [7, 8, 9, 10]}}';
    const parsed = viaSteps(text) as { value: Record<string, unknown> };
    expect(Object.getPrototypeOf(parsed.value)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed.value, "__proto__")).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(parsed).toEqual(viaJsonParse(text));
    expect(Object.keys(parsed.value)).toEqual(Object.keys(JSON.parse(text)));
  });

  it("an OTLP export of megabytes: the same value, no step parsing more than about two pieces", async () => {
    const text = otlpLike(6000);
    const parsedInStep: number[] = [0];
    const realParse = JSON.parse;
    vi.spyOn(JSON, "parse").mockImplementation(
      (source: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
        parsedInStep[parsedInStep.length - 1] = (parsedInStep.at(-1) ?? 0) + source.length;
        return realParse(source, reviver);
      },
    );
    const value = await parseJsonInSteps(text, async () => {
      parsedInStep.push(0);
    });
    vi.restoreAllMocks();
    expect(text.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(value).toEqual(JSON.parse(text));
    expect(parsedInStep.length).toBeGreaterThan(text.length / JSON_STEP_SIZES.pieceChars);
    expect(Math.max(...parsedInStep)).toBeLessThanOrEqual(2 * JSON_STEP_SIZES.pieceChars + 1024);
  });

  it(`parsed in steps, refuses nesting deeper than ${MAX_JSON_DEPTH} (2 MiB of brackets took JSON.parse 1.2 s) and takes ${MAX_JSON_DEPTH}`, () => {
    const inSteps = { ...JSON_STEP_SIZES, directChars: 0 };
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    expect(() => [...jsonParseSteps(nested(MAX_JSON_DEPTH + 1), inSteps)]).toThrow(JsonTooDeepError);
    expect(new JsonTooDeepError()).toBeInstanceOf(SyntaxError);
    expect(viaSteps(nested(MAX_JSON_DEPTH), inSteps)).toEqual(viaJsonParse(nested(MAX_JSON_DEPTH)));
    const bomb = "[".repeat(2_500_000) + "]".repeat(2_500_000);
    expect(() => [...jsonParseSteps(bomb)]).toThrow(JsonTooDeepError); // stops at depth 513, not after 5 MiB
    // Under 2 MiB but with more brackets than the direct path takes: in steps too, so refused as deep.
    const bracketsOnly = nested(JSON_STEP_SIZES.directBrackets + 1);
    expect(bracketsOnly.length).toBeLessThan(JSON_STEP_SIZES.directChars);
    expect(() => [...jsonParseSteps(bracketsOnly)]).toThrow(JsonTooDeepError);
  });

  it("a body up to 2 MiB with few brackets is one JSON.parse, without a yield", () => {
    const text = JSON.stringify({
      records: Array.from({ length: 1000 }, (_, i) => ({ id: `r-${i}`, text: "x".repeat(1500) })),
    });
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const parse = vi.spyOn(JSON, "parse");
    const steps = jsonParseSteps(text);
    const first = steps.next();
    expect(first.done).toBe(true);
    expect(parse).toHaveBeenCalledTimes(1);
    expect(first.value).toEqual(JSON.parse(text));
  });
});
