import { describe, expect, it } from "vitest";
import type { OtlpSpan } from "@/lib/otlp";
import { newTraceId } from "@/tests/support/otlp-exports";
import { semconvCall, semconvSession } from "@/tests/support/otlp-spans";
import { SAMPLES } from "@/tests/support/secret-samples";
import { otlpTestApp } from "@/tests/support/otlp-app";

// Issue 43 §4 through POST /v1/traces: a protocol version that cannot be kept, or a peer name past the record's
// length, costs that one field. The spans are stored, the chain's state is the one the rest of the evidence gives
// (never incompatible_session with server unknown), and the answer and /metrics say what was done.

const { send, chainOf, query, metrics } = otlpTestApp();

async function storedText(traceId: string) {
  const { rows } = await query(
    "select count(*)::int as n, string_agg(span::text, '') as t from otlp_spans where trace_id = $1",
    [traceId],
  );
  return rows[0] as { n: number; t: string };
}

describe("a protocol version that cannot be kept, on the initialize span", () => {
  for (const [kind, version] of [
    ["token-like", SAMPLES.github_token[0] as string],
    ["NUL", "2025-06-18\u0000"],
  ]) {
    it(`(${kind}) is dropped alone: the handshake is kept, the chain is classified on its evidence`, async () => {
      const traceId = newTraceId();
      const [initialize, ...session] = semconvSession({ traceId });
      const handshake: OtlpSpan = {
        ...(initialize as OtlpSpan),
        attributes: {
          ...(initialize as OtlpSpan).attributes,
          "mcp.protocol.version": version as string,
          "receipt.server.name": "long-ops",
          "receipt.server.version": "1.2.0",
        },
      };
      const call = semconvCall({ traceId, attributes: { "receipt.call.side_effect": "none" } });
      const answer = await send([handshake, ...session, call]);
      expect(answer.partialSuccess?.rejectedSpans).toBe("0");
      expect(answer.partialSuccess?.errorMessage).toBe(
        `1 span(s) accepted with warnings: masked_attribute at $ (span ${traceId}/${handshake.spanId}): mcp.protocol.version dropped: the value looked like a credential or held a control character; the span is kept without it`,
      );
      const stored = await storedText(traceId);
      expect(stored.n).toBe(4);
      expect(stored.t).not.toContain(version);
      // The handshake stands (server named, version agreed from the session's other spans): no_receipt, not
      // incompatible_session.
      expect(await chainOf(call)).toEqual({
        state: "unverified",
        server_name: "long-ops",
        server_version: "1.2.0",
      });
      const { rows } = await query(
        "select body::text as body from health_records where chain_id = $1 order by observed_at desc limit 1",
        [`otlp:${call.traceId}:${call.spanId}`],
      );
      expect(JSON.parse(rows[0]?.body).session.protocol.acceptedVersion).toBe("2025-06-18");
    });
  }
});

it("a server name of 600 characters is cut to 128 and stored, said as a warning", async () => {
  const traceId = newTraceId();
  const name = `${"s".repeat(599)}!`;
  const call = semconvCall({
    traceId,
    attributes: { "receipt.call.side_effect": "none", "receipt.server.name": name },
  });
  const answer = await send([...semconvSession({ traceId }), call]);
  expect(answer.partialSuccess?.rejectedSpans).toBe("0");
  expect(answer.partialSuccess?.errorMessage).toContain(
    `masked_attribute at $ (span ${traceId}/${call.spanId}): receipt.server.name cut to the record's length`,
  );
  expect(await chainOf(call)).toEqual({
    state: "unverified",
    server_name: "s".repeat(128),
    server_version: "unknown",
  });
  expect((await storedText(traceId)).t).toContain('"receipt.truncated"');
});

it("each masked or cut span is counted on /metrics as a warning", async () => {
  const line = (await metrics())
    .split("\n")
    .find((candidate) =>
      candidate.startsWith('receipt_otlp_spans_total{outcome="warning",code="masked_attribute"} '),
    );
  expect(line?.split(" ")[1]).toBe("3");
});
