import { describe, expect, it } from "vitest";
import { validateRecord } from "@/lib/contract/validate";
import { buildRecords, UNREPORTED_VERSION } from "@/lib/otlp";
import { classified, onlyChain, shifted } from "../support/otlp-classify";
import {
  FULL_RECEIPT,
  iso,
  OTHER_TRACE,
  PASSING_OUTCOME,
  semconvCall,
  semconvSession,
  span,
} from "../support/otlp-spans";

describe("OTLP mapping (conventions): sessions, catalogs and receipts → classifier", () => {
  it("a successful tools/call without receipt.* is unverified, never healthy", () => {
    const { record, result } = onlyChain([...semconvSession(), semconvCall()]);
    expect(result.state).toBe("unverified");
    expect(result.reasons[0]).toBe("outcome.no_receipt");
    expect(result.evidence).toBeUndefined();
    expect(record.call?.sideEffect).toBe("unknown");
    expect(record.call?.response).toEqual({ at: iso(150), kind: "result", isError: false });
    expect(record.call?.requestId).toBe("2");
    expect(record.session.protocol).toEqual({
      era: "legacy",
      requestedVersion: "2025-06-18",
      acceptedVersion: "2025-06-18",
      clientSupportedVersions: ["2025-06-18"],
      initializedAt: iso(21),
    });
    expect(record.session.transport).toBe("stdio");
    expect(record.session.client).toEqual({ name: "weather-agent", version: "1.4.0" });
    expect(record.catalog?.refreshedAt).toBe(iso(40));
    expect(record.observedAt).toBe(iso(150));
    expect(record.chainId).toMatch(/^otlp:[0-9a-f]{32}:[0-9a-f]{16}$/);
  });

  it("a call with full receipt.* evidence is healthy with strong evidence", () => {
    const call = semconvCall({ attributes: FULL_RECEIPT, events: PASSING_OUTCOME });
    const { record, result } = onlyChain([...semconvSession(), call]);
    expect(result).toMatchObject({ state: "healthy", evidence: "strong", reasons: ["outcome.verified"] });
    expect(record.call).toMatchObject({
      sideEffect: "write",
      operationKey: "op:weather-report-42",
      expectedVerifier: "db_row",
      deadlineMs: 30_000,
      inactivityMs: 10_000,
      effect: { checkedAt: iso(160), status: "committed", receipt: "reports/42@v3" },
      outcome: { checkedAt: iso(170), verifier: "db_row", verdict: "pass", receipt: "row 42 v3" },
    });
    expect(record.session.server).toEqual({ name: "weather-mcp", version: "2.3.1" });
    expect(record.observedAt).toBe(iso(170));
  });

  it("a failing verifier is false_success; an llm_judge pass is healthy with weak evidence", () => {
    const failing = [
      {
        name: "receipt.outcome",
        at: 170,
        attributes: { "receipt.outcome.verifier": "test", "receipt.outcome.verdict": "fail" },
      },
    ];
    expect(onlyChain([...semconvSession(), semconvCall({ events: failing })]).result.state).toBe(
      "false_success",
    );
    const judged = [
      {
        name: "receipt.outcome",
        at: 170,
        attributes: { "receipt.outcome.verifier": "llm_judge", "receipt.outcome.verdict": "pass" },
      },
    ];
    const { result } = onlyChain([...semconvSession(), semconvCall({ events: judged })]);
    expect(result).toMatchObject({ state: "healthy", evidence: "weak" });
  });

  it("session spans in another trace join the call through mcp.session.id", () => {
    const session = semconvSession({
      traceId: OTHER_TRACE,
      sessionId: "191c4850af6c49e08843a3f6c80e5046",
      transport: "tcp",
    });
    const call = semconvCall({ sessionId: "191c4850af6c49e08843a3f6c80e5046", transport: "tcp" });
    const { record, result } = onlyChain([...session, call]);
    expect(result.reasons[0]).toBe("outcome.no_receipt");
    expect(record.session.protocol.initializedAt).toBe(iso(21));
    expect(record.session.transport).toBe("streamable-http");
    expect(record.catalog).toBeDefined();
    expect(JSON.stringify(record)).not.toContain("191c4850af6c49e08843a3f6c80e5046");
  });

  it("session spans in the same trace join the call without a session id", () => {
    const { record } = onlyChain([...semconvSession(), semconvCall()]);
    expect(record.session.protocol.initializedAt).toBeDefined();
    expect(record.catalog?.pages).toBe(1);
  });

  it("without its session's spans a call says neither layer was observed, and is never incompatible (v1.2)", () => {
    const { record, result } = onlyChain([semconvCall()]);
    expect(record.observed).toEqual({ handshake: false, catalog: false });
    expect(record.catalog).toBeUndefined();
    expect(record.session.protocol.initializedAt).toBeUndefined();
    expect(result.state).not.toBe("incompatible_session");
    expect(result.reasons).not.toContain("session.not_initialized");
    expect(result.reasons).toEqual(expect.arrayContaining(["session.not_observed", "catalog.not_observed"]));
    expect(validateRecord(record).ok).toBe(true);
  });

  it("a call that returned a tool error without its handshake span is tool_failed, not incompatible_session", () => {
    const { record, result } = onlyChain([
      semconvCall({ status: "error", attributes: { "error.type": "tool_error" } }),
    ]);
    expect(record.observed).toEqual({ handshake: false, catalog: false });
    expect(result.state).toBe("tool_failed");
  });

  it("with the handshake but no tools/list span, only the catalog is unseen", () => {
    const session = semconvSession().filter((s) => s.attributes["mcp.method.name"] !== "tools/list");
    const { record, result } = onlyChain([...session, semconvCall()]);
    expect(record.observed).toEqual({ catalog: false });
    expect(record.session.protocol.initializedAt).toBeDefined();
    expect(result.reasons).toContain("catalog.not_observed");
    expect(result.reasons).not.toContain("catalog.not_read");
  });

  it("with every layer's spans, the record carries no observed field (it saw everything)", () => {
    const { record } = onlyChain([...semconvSession(), semconvCall()]);
    expect(record.observed).toBeUndefined();
  });

  it("a tools/call whose tool is not in the tools/list catalog is protocol_error", () => {
    const session = semconvSession({
      listAttributes: { "receipt.catalog.tool_names": ["echo", "add"], "receipt.catalog.tool_count": 2 },
    });
    const { record, result } = onlyChain([...session, semconvCall({ tool: "get-weather" })]);
    expect(record.call?.inCatalog).toBe(false);
    expect(record.catalog?.toolCount).toBe(2);
    expect(result.state).toBe("protocol_error");
    expect(result.reasons[0]).toBe("request.unknown_tool");
    const offered = onlyChain([...session, semconvCall({ tool: "echo" })]);
    expect(offered.record.call?.inCatalog).toBe(true);
  });

  it("a tools/list_changed after the refresh and before the call makes the catalog stale", () => {
    const changed = span({
      name: "notifications/tools/list_changed",
      kind: "server",
      start: 60,
      attributes: { "mcp.method.name": "notifications/tools/list_changed" },
    });
    const { record, result } = onlyChain([...semconvSession(), changed, semconvCall()]);
    expect(record.catalog?.listChangedAt).toEqual([iso(60)]);
    expect(result.state).toBe("stale_catalog");
    expect(result.reasons[0]).toBe("catalog.changed_since_refresh");
  });

  it("receipt.* on the call's parent span count as the call's (an agent's own span around the call)", () => {
    const parent = span({
      name: "receipt get-weather",
      kind: "internal",
      start: 90,
      end: 180,
      spanId: "00000000000000a1",
      attributes: FULL_RECEIPT,
      events: PASSING_OUTCOME,
    });
    const call = semconvCall({ parentSpanId: "00000000000000a1" });
    const { result } = onlyChain([...semconvSession(), parent, call]);
    expect(result.state).toBe("healthy");
  });

  it("a failed handshake gets a session-only record; a quiet session none", () => {
    const failed = span({
      name: "initialize",
      start: 0,
      end: 20,
      status: "error",
      attributes: { "mcp.method.name": "initialize", "error.type": "timeout" },
    });
    const [only] = classified([failed]);
    expect(only?.record.call).toBeUndefined();
    expect(only?.record.chainId).toMatch(/^otlp:session:[0-9a-f]{32}$/);
    expect(only?.result.state).toBe("incompatible_session");
    expect(only?.result.reasons[0]).toBe("session.no_answer");
    const refused = { ...failed, attributes: { ...failed.attributes, "error.type": "-32602" } };
    expect(classified([refused])[0]?.result.reasons[0]).toBe("session.no_agreed_version");
    expect(buildRecords(semconvSession()).records).toEqual([]);
    // A retry that succeeds supersedes the failure on the session's chain, beside the call's own chain.
    const retried = [
      failed,
      ...semconvSession().map((one) => shifted(one, 30)),
      semconvCall({ start: 200, end: 230 }),
    ];
    const chains = classified(retried);
    expect(chains.map((chain) => chain.result.reasons[0]).sort()).toEqual([
      "chain.no_call",
      "outcome.no_receipt",
    ]);
  });

  it("a version nobody reports is recorded as not reported, and the session still agrees", () => {
    const call = semconvCall();
    delete call.attributes["mcp.protocol.version"];
    const { record } = onlyChain([call]);
    expect(record.session.protocol.requestedVersion).toBe(UNREPORTED_VERSION);
    expect(record.session.protocol.acceptedVersion).toBe(UNREPORTED_VERSION);
  });

  it("reports unmappable spans and ignored attributes, never their values", () => {
    const nameless = span({
      name: "tools/call",
      attributes: { "mcp.method.name": "tools/call" },
      start: 100,
    });
    const badKey = semconvCall({
      attributes: {
        "receipt.call.operation_key": "has spaces sk-live-value",
        "receipt.call.side_effect": "maybe",
      },
    });
    const { records, problems } = buildRecords([...semconvSession(), nameless, badKey]);
    expect(records).toHaveLength(1);
    expect(problems.map((problem) => problem.code).sort()).toEqual([
      "invalid_attribute",
      "invalid_attribute",
      "missing_tool_name",
    ]);
    expect(problems.find((problem) => problem.code === "missing_tool_name")?.spanId).toBe(nameless.spanId);
    expect(JSON.stringify(problems)).not.toContain("sk-live-value");
    expect(JSON.stringify(problems)).not.toContain("maybe");
  });
});
