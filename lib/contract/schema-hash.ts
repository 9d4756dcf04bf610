import canonicalize from "canonicalize";
import { sha256Hex } from "./sha256";

/** A tool as `tools/list` returns it; only name and the two schemas take part in the hash. */
export type CatalogTool = {
  name: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  [key: string]: unknown;
};

/**
 * The catalog's `schemaHash` (contract §1): "sha256:" + hex SHA-256 of the RFC 8785 (JCS)
 * JSON of the tools sorted by name, each reduced to `{ name, inputSchema, outputSchema }`.
 * Titles, descriptions and annotations are left out so that rewording a description does
 * not look like a schema change. Collector and tests share this one implementation.
 */
export function catalogSchemaHash(tools: readonly CatalogTool[]): string {
  const reduced = tools.map((tool) => ({
    name: tool.name,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
  }));
  // Sort by UTF-16 code units (not locale) so every runtime agrees; duplicate names
  // (a broken server) are tie-broken by their canonical form to stay order-independent.
  const keyed = reduced.map((tool) => ({ tool, canonical: canonicalize(tool) ?? "" }));
  keyed.sort((x, y) => compare(x.tool.name, y.tool.name) || compare(x.canonical, y.canonical));
  const canonical = canonicalize(keyed.map((entry) => entry.tool)) ?? "[]";
  return `sha256:${sha256Hex(canonical)}`;
}

function compare(a: string, b: string): number {
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}
