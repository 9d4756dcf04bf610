/**
 * Classifies health records from a file or stdin (issue 3; other tools depend on this interface).
 *
 *   npm run --silent classify -- FILE [--at TIMESTAMP]
 *
 * FILE is a JSON array of records, a `{ "records": [...] }` object, or NDJSON (one record per
 * line, blank lines skipped); `-` reads stdin. The seed fixture's `{ "cases": [{ "record" }] }`
 * shape is also read, so `classify -- tests/fixtures/seed-cases.json` replays it. One JSON object per record is printed, in input
 * order, and nothing else on stdout:
 *   valid:   {"recordId","chainId", ...classification}
 *   invalid: {"index":N,"error":{"code":"invalid_record"|"secret_detected"|"invalid_at","issues":[...]}}
 * N is the record's 0-based position in the input. `invalid_at` = `--at` is earlier than that
 * record's observedAt (classification is undefined there; other records still classify).
 *
 * Exit: 0 every record valid, 2 any invalid (valid ones still printed), 1 unreadable input or
 * bad arguments (one line on stderr). Messages never quote input, which may hold secrets.
 */
import { readFileSync } from "node:fs";
import { classify } from "../lib/classifier/classify";
import { parseTimestamp } from "../lib/contract/timestamp";
import { type ValidationIssue, validateRecord } from "../lib/contract/validate";

const USAGE =
  "usage: npm run --silent classify -- FILE [--at TIMESTAMP]   (FILE: JSON array, {records:[...]}, NDJSON, or - for stdin)";

/** Input we cannot turn into a list of records at all: exit 1. */
class UnreadableInput extends Error {}

type Entry = { value: unknown } | { unparsable: true };

type ErrorLine = { index: number; error: { code: string; issues: ValidationIssue[] } };

function parseArgs(argv: string[]): { file: string; at?: string } {
  let file: string | undefined;
  let at: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--at") {
      at = argv[++i];
      if (at === undefined) throw new UnreadableInput("--at needs a TIMESTAMP");
    } else if (arg.startsWith("--at=")) {
      at = arg.slice("--at=".length);
    } else if (arg === "-" || !arg.startsWith("-")) {
      if (file !== undefined) throw new UnreadableInput(`more than one FILE given. ${USAGE}`);
      file = arg;
    } else {
      throw new UnreadableInput(`unknown option ${arg}. ${USAGE}`);
    }
  }
  if (file === undefined) throw new UnreadableInput(`no FILE given. ${USAGE}`);
  if (at !== undefined && parseTimestamp(at) === undefined) {
    throw new UnreadableInput(
      "--at must be an RFC 3339 timestamp with a zone, e.g. 2026-11-30T10:00:00.000Z",
    );
  }
  return { file, at };
}

function readText(file: string): string {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8").replace(/^\uFEFF/, "");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "read error";
    throw new UnreadableInput(`cannot read ${file === "-" ? "stdin" : file}: ${code}`);
  }
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Turns the three accepted input shapes into entries; a bad NDJSON line is one invalid record. */
function parseEntries(text: string): Entry[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  if (trimmed.startsWith("[")) {
    const parsed = tryParse(trimmed);
    if (!parsed.ok || !Array.isArray(parsed.value))
      throw new UnreadableInput("input starts like a JSON array but is not valid JSON");
    return parsed.value.map((value) => ({ value }));
  }
  if (trimmed.startsWith("{")) {
    const parsed = tryParse(trimmed);
    if (parsed.ok && typeof parsed.value === "object" && parsed.value !== null && "records" in parsed.value) {
      const { records } = parsed.value as { records: unknown };
      if (!Array.isArray(records)) throw new UnreadableInput('"records" must be an array');
      return records.map((value) => ({ value }));
    }
    if (parsed.ok && isSeedFixture(parsed.value)) return parsed.value.cases.map((c) => ({ value: c.record }));
    // A single object (possibly pretty-printed) is a one-record file.
    if (parsed.ok) return [{ value: parsed.value }];
  }
  const entries: Entry[] = trimmed
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const parsed = tryParse(line);
      return parsed.ok ? { value: parsed.value } : { unparsable: true };
    });
  if (entries.every((entry) => "unparsable" in entry)) {
    throw new UnreadableInput('input is not a JSON array, a {"records": [...]} object or NDJSON');
  }
  return entries;
}

/**
 * The seed fixture (`tests/fixtures/seed-cases.json`: `{ "cases": [{ "record": ... }] }`) is
 * accepted as well, so the fixture replays through the CLI unchanged.
 */
function isSeedFixture(value: unknown): value is { cases: { record: unknown }[] } {
  if (typeof value !== "object" || value === null || !("cases" in value)) return false;
  const { cases } = value as { cases: unknown };
  return Array.isArray(cases) && cases.every((c) => typeof c === "object" && c !== null && "record" in c);
}

function classifyEntry(
  entry: Entry,
  index: number,
  at: string | undefined,
): { line: string; valid: boolean } {
  const fail = (code: string, issues: ValidationIssue[]) => {
    const line: ErrorLine = { index, error: { code, issues } };
    return { line: JSON.stringify(line), valid: false };
  };
  if ("unparsable" in entry) {
    return fail("invalid_record", [
      { path: "$", code: "invalid_json", message: "this NDJSON line is not valid JSON" },
    ]);
  }
  const validation = validateRecord(entry.value);
  if (!validation.ok) return fail(validation.code, validation.issues);
  const { record } = validation;
  try {
    const classification = classify(record, at);
    return {
      line: JSON.stringify({ recordId: record.recordId, chainId: record.chainId, ...classification }),
      valid: true,
    };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return fail("invalid_at", [
      { path: "$.observedAt", code: "invalid_at", message: "--at is earlier than this record's observedAt" },
    ]);
  }
}

function main(): number {
  try {
    const { file, at } = parseArgs(process.argv.slice(2));
    const entries = parseEntries(readText(file));
    const results = entries.map((entry, index) => classifyEntry(entry, index, at));
    if (results.length > 0) process.stdout.write(`${results.map((result) => result.line).join("\n")}\n`);
    return results.every((result) => result.valid) ? 0 : 2;
  } catch (error) {
    if (!(error instanceof UnreadableInput)) throw error;
    process.stderr.write(`classify: ${error.message}\n`);
    return 1;
  }
}

process.exitCode = main();
