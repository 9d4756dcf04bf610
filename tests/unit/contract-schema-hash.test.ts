/** catalogSchemaHash (contract §1) and the pure-JS SHA-256 it runs on. */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { catalogSchemaHash } from "@/lib/contract/schema-hash";
import { sha256Hex } from "@/lib/contract/sha256";
import { SCHEMA_HASH_PATTERN } from "@/lib/contract/record";

const nodeSha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

const search = {
  name: "search",
  title: "Search",
  description: "Full-text search",
  inputSchema: { type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } } },
};
const write = {
  name: "write_file",
  inputSchema: { type: "object", required: ["path", "content"], properties: { path: { type: "string" } } },
  outputSchema: { type: "object", properties: { bytes: { type: "integer" } } },
  annotations: { destructiveHint: true },
};

describe("sha256", () => {
  it.each([
    "",
    "abc",
    "a".repeat(55),
    "a".repeat(56),
    "a".repeat(63),
    "a".repeat(64),
    "a".repeat(1_000),
    "héllo ✓ 𝄞",
  ])("matches node:crypto for %#", (text) => {
    expect(sha256Hex(text)).toBe(nodeSha256(text));
  });

  it("matches node:crypto on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
        expect(sha256Hex(text)).toBe(nodeSha256(text));
      }),
      { numRuns: 500 },
    );
  });
});

describe("catalogSchemaHash", () => {
  it("is sha256 of the JCS JSON of the tools sorted by name, reduced to name and schemas", () => {
    const expected = nodeSha256(
      '[{"inputSchema":{"properties":{"limit":{"type":"integer"},"query":{"type":"string"}},"type":"object"},"name":"search"},' +
        '{"inputSchema":{"properties":{"path":{"type":"string"}},"required":["path","content"],"type":"object"},' +
        '"name":"write_file","outputSchema":{"properties":{"bytes":{"type":"integer"}},"type":"object"}}]',
    );
    expect(catalogSchemaHash([write, search])).toBe(`sha256:${expected}`);
  });

  it("has the format the record schema requires", () => {
    expect(catalogSchemaHash([search])).toMatch(SCHEMA_HASH_PATTERN);
    expect(catalogSchemaHash([])).toBe(`sha256:${nodeSha256("[]")}`);
  });

  it("does not depend on the order of the tool list", () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray([search, write, { name: "a" }, { name: "Z" }], { minLength: 4 }),
        (tools) => {
          expect(catalogSchemaHash(tools)).toBe(
            catalogSchemaHash([search, write, { name: "a" }, { name: "Z" }]),
          );
        },
      ),
    );
  });

  it("does not depend on the order of object keys", () => {
    const reordered = {
      outputSchema: { properties: { bytes: { type: "integer" } }, type: "object" },
      inputSchema: {
        properties: { path: { type: "string" } },
        required: ["path", "content"],
        type: "object",
      },
      name: "write_file",
    };
    expect(catalogSchemaHash([reordered])).toBe(catalogSchemaHash([write]));
  });

  it("ignores every field except name, inputSchema and outputSchema", () => {
    const plain = { name: search.name, inputSchema: search.inputSchema };
    expect(catalogSchemaHash([search])).toBe(catalogSchemaHash([plain]));
    expect(catalogSchemaHash([{ ...search, description: "reworded", icons: [] }])).toBe(
      catalogSchemaHash([plain]),
    );
  });

  it("changes when a schema changes (array order inside a schema matters)", () => {
    const changed = { ...write, inputSchema: { ...write.inputSchema, required: ["content", "path"] } };
    expect(catalogSchemaHash([changed])).not.toBe(catalogSchemaHash([write]));
    expect(catalogSchemaHash([{ name: "search" }])).not.toBe(catalogSchemaHash([search]));
  });

  it("canonicalises numbers (1.0 and 1 are the same JSON number)", () => {
    const a = { name: "n", inputSchema: { maximum: 1.0 } };
    const b = JSON.parse('{"name":"n","inputSchema":{"maximum":1}}');
    expect(catalogSchemaHash([a])).toBe(catalogSchemaHash([b]));
  });

  it("is order-independent even with duplicate names", () => {
    const first = { name: "dup", inputSchema: { type: "object" } };
    const second = { name: "dup", inputSchema: { type: "string" } };
    expect(catalogSchemaHash([first, second])).toBe(catalogSchemaHash([second, first]));
  });
});
