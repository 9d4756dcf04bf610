import { describe, expect, it } from "vitest";
import { classified, onlyChain, shifted } from "../support/otlp-classify";
import { iso, semconvCall, semconvSession, span } from "../support/otlp-spans";

const unauthorizedInitialize = () =>
  span({
    name: "initialize",
    start: 0,
    end: 5,
    status: "error",
    attributes: { "mcp.method.name": "initialize", "error.type": "401", "network.transport": "tcp" },
  });

describe("OTLP mapping of authorization challenges", () => {
  it("an initialize refused with HTTP 401 is needs_auth on the session's record", () => {
    const [only] = classified([unauthorizedInitialize()]);
    expect(only?.record.session.auth).toEqual({ challenge: { status: 401, at: iso(5) } });
    expect(only?.result.state).toBe("needs_auth");
    expect(only?.result.reasons[0]).toBe("auth.challenge_unresolved");
  });

  it("a later request that got an answer resolves the challenge, on the session's record and the call's", () => {
    const spans = [
      unauthorizedInitialize(),
      ...semconvSession().map((one) => shifted(one, 10)),
      semconvCall(),
    ];
    const chains = classified(spans);
    expect(chains.map((chain) => chain.result.reasons[0]).sort()).toEqual([
      "chain.no_call",
      "outcome.no_receipt",
    ]);
    for (const chain of chains) expect(chain.record.session.auth?.resolvedAt).toBe(iso(30));
  });

  it("a call whose HTTP request got 403, with the challenge's details in a receipt.auth.challenge event", () => {
    const call = semconvCall({
      status: "error",
      spanId: "00000000000000e1",
      attributes: { "error.type": "_OTHER" },
    });
    const http = span({
      name: "POST",
      parentSpanId: "00000000000000e1",
      start: 101,
      end: 140,
      status: "error",
      attributes: { "http.response.status_code": 403, "server.address": "mcp.example.com" },
      events: [
        {
          name: "receipt.auth.challenge",
          at: 140,
          attributes: {
            "receipt.auth.status": 403,
            "receipt.auth.error": "insufficient_scope",
            "receipt.auth.required_scope": "reports:write",
            "receipt.auth.resource": "https://mcp.example.com/mcp",
          },
        },
      ],
    });
    const { record, result } = onlyChain([...semconvSession(), call, http]);
    expect(record.session.auth?.challenge).toEqual({
      status: 403,
      at: iso(140),
      error: "insufficient_scope",
      requiredScope: "reports:write",
      resource: "https://mcp.example.com/mcp",
    });
    expect(result.state).toBe("needs_auth");
    expect(result.shadowed?.state).toBe("effect_unknown");
  });
});
