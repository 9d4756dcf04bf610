/** The `classify` CLI (issue 3): input formats, stdin, --at, exit codes 0/2/1, stdout = JSON lines only. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = join(ROOT, "tests/fixtures/seed-cases.json");
const seedRecords = (
  JSON.parse(readFileSync(FIXTURE, "utf8")) as { cases: { record: Record<string, unknown> }[] }
).cases.map((c) => c.record);
const dir = mkdtempSync(join(tmpdir(), "receipt-classify-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

type Run = { status: number | null; stdout: string; stderr: string; lines: Record<string, unknown>[] };

function run(args: string[], stdin?: string): Run {
  // `npm run classify` without npx's and tsx's launcher processes: the same script under the same TypeScript loader.
  const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/classify.ts", ...args], {
    cwd: ROOT,
    input: stdin,
    encoding: "utf8",
    timeout: 30_000,
  });
  const lines =
    result.stdout === ""
      ? []
      : result.stdout
          .replace(/\n$/, "")
          .split("\n")
          .map((line) => JSON.parse(line));
  // stdout carries JSON lines and nothing else: every line is one JSON object.
  for (const line of lines)
    expect(typeof line === "object" && line !== null && !Array.isArray(line)).toBe(true);
  if (result.stdout !== "") expect(result.stdout.endsWith("\n")).toBe(true);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, lines };
}

const NINE = [
  "healthy",
  "needs_auth",
  "incompatible_session",
  "stale_catalog",
  "working",
  "protocol_error",
  "tool_failed",
  "effect_unknown",
  "false_success",
];

describe("classify CLI", { timeout: 60_000 }, () => {
  it("replays the seed fixture into the nine states (exit 0)", () => {
    const { status, lines, stderr } = run([FIXTURE]);
    expect(stderr).toBe("");
    expect(status).toBe(0);
    expect(lines.map((line) => line.state)).toEqual(NINE);
    expect(lines[0]).toMatchObject({
      recordId: "rec:01JDX7K2H5-export",
      chainId: "chain:export-2026-11-30-a",
      layer: "outcome",
    });
  });

  it("reads a JSON array, a {records} object and NDJSON alike", () => {
    const array = run([file("array.json", JSON.stringify(seedRecords))]);
    const object = run([file("object.json", JSON.stringify({ records: seedRecords }, null, 2))]);
    const ndjson = run([
      file("records.ndjson", `${seedRecords.map((r) => JSON.stringify(r)).join("\n\n")}\n`),
    ]);
    for (const result of [array, object, ndjson]) {
      expect(result.status).toBe(0);
      expect(result.lines.map((line) => line.state)).toEqual(NINE);
    }
    expect(object.stdout).toBe(array.stdout);
    expect(ndjson.stdout).toBe(array.stdout);
  });

  it("reads stdin with `-`; invalid records become error lines in place, exit 2", () => {
    const secret = ["gh", "p_", "Q".repeat(36)].join("");
    const withSecret = { ...seedRecords[1], labels: { owner: secret } };
    const unknownField = { ...seedRecords[2], prompt: "write the memo" };
    const input = [seedRecords[0], withSecret, unknownField, seedRecords[3]]
      .map((r) => JSON.stringify(r))
      .join("\n");
    const { status, lines, stdout } = run(["-"], `${input}\n{not json}\n`);
    expect(status).toBe(2);
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatchObject({ state: "healthy" });
    expect(lines[1]).toEqual({
      index: 1,
      error: {
        code: "secret_detected",
        issues: [
          {
            path: "$.labels.owner",
            code: "secret_detected",
            message: "value matches credential pattern 'github_token'",
          },
        ],
      },
    });
    expect(lines[2]).toMatchObject({
      index: 2,
      error: { code: "invalid_record", issues: [{ path: "$.prompt", code: "unrecognized_keys" }] },
    });
    expect(lines[3]).toMatchObject({ state: "stale_catalog" });
    expect(lines[4]).toMatchObject({
      index: 4,
      error: { code: "invalid_record", issues: [{ code: "invalid_json" }] },
    });
    expect(stdout).not.toContain(secret);
  });

  it("contract v1.2: observed records classify with the not-observed codes; a broken observed is an error line", () => {
    const healthy = seedRecords[0] as { session: { protocol: Record<string, unknown> } };
    const { initializedAt: _unseen, ...protocol } = healthy.session.protocol;
    const sampled = { ...healthy, session: { ...healthy.session, protocol }, observed: { handshake: false } };
    const contradictory = { ...healthy, observed: { catalog: false } };
    const { status, lines } = run([file("observed.json", JSON.stringify([sampled, contradictory]))]);
    expect(status).toBe(2);
    expect(lines[0]).toMatchObject({
      state: "unverified",
      layer: "session",
      reasons: ["session.not_observed"],
    });
    expect(lines[0]).not.toHaveProperty("evidence");
    expect(lines[1]).toMatchObject({
      index: 1,
      error: {
        code: "invalid_record",
        issues: [{ path: "$.observed.catalog", code: "catalog_not_observed_but_present" }],
      },
    });
  });

  it("--at reclassifies later; earlier than observedAt is an invalid_at line", () => {
    const working = seedRecords[4] as { observedAt: string };
    const path = file("working.json", JSON.stringify([working]));
    const now = run([path]);
    const nextCheckAt = String(now.lines[0]?.nextCheckAt);
    const later = run([path, "--at", new Date(Date.parse(nextCheckAt) + 1).toISOString()]);
    expect(later.status).toBe(0);
    expect(later.lines[0]).toMatchObject({
      state: "effect_unknown",
      reasons: ["effect.unreconciled", "request.inactive"],
    });

    const earlier = run([path, `--at=${new Date(Date.parse(working.observedAt) - 1).toISOString()}`]);
    expect(earlier.status).toBe(2);
    expect(earlier.lines[0]).toMatchObject({ index: 0, error: { code: "invalid_at" } });
  });

  it.each([
    ["a missing file", ["/nonexistent/records.json"], undefined],
    ["a truncated JSON array", ["-"], '[{"schemaVersion": 1'],
    ["text that is no JSON at all", ["-"], "hello\nworld\n"],
    ["records that is not an array", ["-"], '{"records": {}}'],
    ["an --at without a zone", [FIXTURE, "--at", "2026-11-30T10:00:00"], undefined],
    ["no FILE", [], undefined],
    ["an unknown option", [FIXTURE, "--verbose"], undefined],
  ])("exits 1 with one stderr line and no stdout for %s", (_name, args, stdin) => {
    const { status, stdout, stderr } = run(args, stdin);
    expect(status).toBe(1);
    expect(stdout).toBe("");
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^classify: /);
  });
});
