// The evidence a notification carries comes from named record fields only: what each row of issue 6's
// table needs, and nothing token- or content-shaped.
import { describe, expect, it } from "vitest";
import { alertContextFromRecord } from "@/lib/routing/context";
import { seedCases } from "@/tests/support/seed-cases";

const seed = (state: string) => {
  const found = seedCases().find((c) => c.expectedState === state);
  if (!found) throw new Error(`no seed case for ${state}`);
  return found.record;
};

describe("alertContextFromRecord", () => {
  it("needs_auth: the challenged resource and required scope", () => {
    expect(alertContextFromRecord(seed("needs_auth"))).toMatchObject({
      resource: "https://reports.example.com/mcp",
      requiredScope: "reports:write",
      authError: "invalid_token",
    });
  });

  it("incompatible_session: client, server, requested and negotiated versions and capabilities", () => {
    const context = alertContextFromRecord(seed("incompatible_session"));
    expect(context).toMatchObject({
      clientVersion: "0.1.0",
      serverVersion: "0.4.2",
      requestedVersion: "2025-11-25",
      negotiatedVersion: "2024-11-05",
      capabilities: { server: ["tools", "tools.listChanged", "logging"], client: ["elicitation"] },
    });
    expect(context.capabilities?.missing).toBeUndefined();
  });

  it("names the missing required capabilities", () => {
    const record = seed("incompatible_session");
    record.session.capabilities.required = { server: ["tools", "tasks"], client: ["sampling"] };
    expect(alertContextFromRecord(record).capabilities?.missing).toEqual(["server.tasks", "client.sampling"]);
  });

  it("protocol_error: method, request id and the sanitized error class", () => {
    expect(alertContextFromRecord(seed("protocol_error"))).toMatchObject({
      method: "tools/call",
      errorCode: -32602,
    });
    expect(alertContextFromRecord(seed("protocol_error")).errorClass).toBeTypeOf("string");
  });

  it("effect_unknown: the operation key; false_success: the verifier and destination", () => {
    expect(alertContextFromRecord(seed("effect_unknown"))).toMatchObject({
      operationKey: "op:weekly-digest-w48",
      verifier: "db_row",
    });
    expect(alertContextFromRecord(seed("false_success"))).toMatchObject({ effectStatus: "absent" });
  });

  it("copies no labels, tool names or receipts", () => {
    const text = JSON.stringify(alertContextFromRecord(seed("false_success")));
    expect(text).not.toMatch(/receipt|labels|create_report/);
  });
});
