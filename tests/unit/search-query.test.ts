// The header box's query language: tokens, quoted values, free words, each refusal with its code and the token's
// span, bounds on any input, and the suggestions offered while a token is typed.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSearchQuery, SEARCH_INPUT_MAX, type SearchParse, unknownKeyError } from "@/lib/search/query";
import {
  applySuggestion,
  chainsListPath,
  suggestValues,
  typedKeyPrefix,
  typedLabelKey,
  typedToken,
} from "@/lib/search/suggest";

function ok(input: string) {
  const parsed = parseSearchQuery(input);
  if (!parsed.ok) throw new Error(`refused ${input}: ${parsed.error.message}`);
  return parsed.query;
}
function refused(input: string) {
  const parsed: SearchParse = parseSearchQuery(input);
  if (parsed.ok) throw new Error(`accepted ${input}`);
  return parsed.error;
}

describe("tokens and words", () => {
  it("reads every key, a label with a colon in it, and free words with their spans", () => {
    const query = ok("server:files tool:read_file state:false_success label:team:reports client:claude abc");
    expect(query).toMatchObject({
      server: "files",
      tool: "read_file",
      client: "claude",
      states: ["false_success"],
      labels: ["team:reports"],
      words: [{ text: "abc", start: 81, end: 84 }],
      keyLike: [],
    });
  });

  it("takes quoted values with spaces, and a quoted word with a colon as a word", () => {
    expect(ok('server:"files a" "chain:x y"')).toMatchObject({
      server: "files a",
      words: [{ text: "chain:x y" }],
    });
  });

  it("a label's value may be quoted after its key", () => {
    expect(ok('label:team:"data platform" label:"env:prod x"').labels).toEqual([
      "team:data platform",
      "env:prod x",
    ]);
  });

  it("repeated state tokens and commas are alternatives, each state once", () => {
    expect(ok("state:tool_failed state:false_success,tool_failed").states).toEqual([
      "tool_failed",
      "false_success",
    ]);
  });

  it("keys and state names are case-insensitive, names are not; the same server twice is one filter", () => {
    expect(ok("SERVER:Files Server:Files").server).toBe("Files");
    expect(ok("State:FALSE_SUCCESS").states).toEqual(["false_success"]);
  });

  it("a word with an unknown key is kept for the caller to try as an id", () => {
    const query = ok("chain:abc-1 op:x");
    expect(query.keyLike.map((w) => [w.key, w.text, w.start])).toEqual([
      ["chain", "chain:abc-1", 0],
      ["op", "op:x", 12],
    ]);
    expect(unknownKeyError(query.keyLike[1] as never)).toMatchObject({
      code: "unknown_token",
      token: { text: "op:x", start: 12, end: 16 },
    });
    expect(unknownKeyError(ok("sever:x").keyLike[0] as never).message).toContain("did you mean `server:`");
  });

  it("ids without a letter key (times, numbers) and unicode are plain words", () => {
    expect(ok("12:30 987654321 sess-日本語 🚀").words.map((w) => w.text)).toEqual([
      "12:30",
      "987654321",
      "sess-日本語",
      "🚀",
    ]);
    expect(ok("\u00a0 abc\u3000").words).toEqual([{ text: "abc", start: 2, end: 5 }]);
  });
});

describe("refusals name the token and where it is", () => {
  it.each([
    ["", "empty_query", ""],
    ["   ", "empty_query", ""],
    ['""', "empty_query", ""],
    ["abc server:", "missing_value", "server:"],
    ["state:", "missing_value", "state:"],
    ["state:,", "missing_value", "state:,"],
    ["x state:falsy", "unknown_state", "state:falsy"],
    ["state:healthy,nope", "unknown_state", "state:healthy,nope"],
    ["label:team", "invalid_label", "label:team"],
    ["label:Team:x", "invalid_label", "label:Team:x"],
    ["server:a server:b", "repeated_token", "server:b"],
    ['server:"a b', "unclosed_quote", 'server:"a b'],
    [`tool:${"t".repeat(129)}`, "value_too_long", `tool:${"t".repeat(129)}`],
    ["a b c d e", "too_many_terms", "e"],
  ])("%j → %s", (input, code, text) => {
    const error = refused(input);
    expect(error.code).toBe(code);
    expect(error.token.text).toBe(text);
    expect(input.slice(error.token.start, error.token.end)).toBe(text);
    expect(error.message.length).toBeGreaterThan(10);
  });

  it("more than 16 terms is refused at the 17th", () => {
    const input = Array.from({ length: 17 }, () => "state:healthy").join(" ");
    expect(refused(input)).toMatchObject({ code: "too_many_terms", token: { start: 16 * 14 } });
  });

  it("a 2,000-character input is refused as too long without being read", () => {
    const error = refused("x".repeat(2000));
    expect(error).toMatchObject({ code: "too_long", token: { start: SEARCH_INPUT_MAX, end: 2000 } });
  });

  it("never throws, and every answer's span lies inside the input (property)", () => {
    const alphabet = fc.constantFrom("a", ":", '"', " ", "state", "server", "label", ",", "é", "\t", "_");
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 120 }).map((parts) => parts.join("")),
        (input) => {
          const parsed = parseSearchQuery(input);
          if (parsed.ok) {
            for (const word of [...parsed.query.words, ...parsed.query.keyLike]) {
              expect(word.start).toBeGreaterThanOrEqual(0);
              expect(word.end).toBeLessThanOrEqual(input.length);
            }
          } else {
            expect(parsed.error.token.start).toBeLessThanOrEqual(parsed.error.token.end);
            expect(parsed.error.token.end).toBeLessThanOrEqual(input.length);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("suggestions", () => {
  const source = {
    servers: ["files", "files b", "github"],
    tools: ["read_file", "write_file"],
    clients: ["claude"],
    labelKeys: ["team", "env"],
  };

  it("finds the token at the caret and offers stored values by prefix, then by substring", () => {
    const input = "abc tool:fi";
    const token = typedToken(input, input.length);
    expect(token).toEqual({ key: "tool", prefix: "fi", start: 4, end: 11 });
    expect(suggestValues(token as never, source, input).map((s) => s.token)).toEqual([
      "tool:read_file",
      "tool:write_file",
    ]);
    expect(typedToken("abc", 3)).toBeUndefined();
    expect(typedToken("chain:x", 7)).toBeUndefined();
  });

  it("quotes a value with a space, suggests label keys, and states after a comma", () => {
    const server = typedToken("server:fil", 10);
    expect(suggestValues(server as never, source).map((s) => s.token)).toEqual([
      "server:files",
      'server:"files b"',
    ]);
    const label = typedToken("label:t", 7);
    expect(suggestValues(label as never, source)).toEqual([{ token: "label:team:", label: "team:…" }]);
    const input = "state:tool_failed,fal";
    const state = typedToken(input, input.length);
    expect(suggestValues(state as never, source, input).map((s) => s.token)).toEqual([
      "state:tool_failed,false_success",
    ]);
  });

  it("a complete label key suggests its stored values, quoted when they hold a space", () => {
    const token = typedToken("label:team:da", 13);
    expect(typedLabelKey(token)).toBe("team");
    const withValues = {
      ...source,
      labelValues: { key: "team", values: ["data platform", "reports", "dash"] },
    };
    expect(suggestValues(token as never, withValues).map((s) => s.token)).toEqual([
      'label:team:"data platform"',
      "label:team:dash",
    ]);
    expect(suggestValues(token as never, source)).toEqual([]);
    expect(typedLabelKey(typedToken("label:Team:x", 12))).toBeUndefined();
  });

  it("replaces the typed token, keeps the rest, and leaves the caret after it", () => {
    const input = "server:fi abc";
    const token = typedToken(input, 9);
    expect(applySuggestion(input, token as never, { token: "server:files", label: "files" })).toEqual({
      text: "server:files abc",
      caret: 13,
    });
    const label = typedToken("label:te", 8);
    expect(applySuggestion("label:te", label as never, { token: "label:team:", label: "team:…" })).toEqual({
      text: "label:team:",
      caret: 11,
    });
  });

  it("a bare word suggests the keys it could begin", () => {
    expect(typedKeyPrefix("abc s", 5)?.suggestions.map((s) => s.token)).toEqual(["server:", "state:"]);
    expect(typedKeyPrefix("xyz", 3)).toBeUndefined();
    expect(typedKeyPrefix("", 0)).toBeUndefined();
  });

  it("a query of tokens names the chain list with the same filters", () => {
    const query = ok(
      "server:files state:tool_failed,false_success label:team:reports label:env:prod tool:x client:c",
    );
    expect(chainsListPath(query)).toBe(
      "/chains?state=tool_failed%2Cfalse_success&server=files&tool=x&client=c&label=team%3Areports&label=env%3Aprod",
    );
    expect(chainsListPath({ states: [], labels: [] })).toBe("/chains");
  });
});
