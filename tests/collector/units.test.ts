import { describe, expect, it } from "vitest";
import { capabilityPaths, errorClass, parseChallenge } from "@/packages/collector/src";

describe("capabilityPaths", () => {
  it("lists every key path, dotted", () => {
    expect(
      capabilityPaths({
        tools: { listChanged: true },
        logging: {},
        tasks: { requests: { tools: { call: {} } } },
      }),
    ).toEqual([
      "tools",
      "tools.listChanged",
      "logging",
      "tasks",
      "tasks.requests",
      "tasks.requests.tools",
      "tasks.requests.tools.call",
    ]);
  });
  it("leaves out keys set to false (the peer says: not supported)", () => {
    expect(capabilityPaths({ tools: { listChanged: false } })).toEqual(["tools"]);
    expect(capabilityPaths(undefined)).toEqual([]);
  });
});

describe("parseChallenge", () => {
  it("reads error, scope and resource_metadata; the resource loses its query string", () => {
    const header =
      'Bearer realm="mcp", error="insufficient_scope", scope="a:read b:write", resource_metadata="https://rs.example/.well-known/oauth-protected-resource"';
    expect(parseChallenge(403, header, "https://rs.example/mcp?key=abc#x", 0)).toEqual({
      status: 403,
      at: "1970-01-01T00:00:00.000Z",
      error: "insufficient_scope",
      requiredScope: "a:read b:write",
      resourceMetadataUrl: "https://rs.example/.well-known/oauth-protected-resource",
      resource: "https://rs.example/mcp",
    });
  });
  it("accepts bare tokens and ignores non-Bearer schemes and invalid URLs", () => {
    expect(
      parseChallenge(401, "Bearer scope=files error=invalid_token", "http://127.0.0.1/mcp", 0),
    ).toMatchObject({
      requiredScope: "files",
      error: "invalid_token",
    });
    expect(parseChallenge(401, 'Basic realm="x"', "http://127.0.0.1/mcp", 0)).not.toHaveProperty(
      "requiredScope",
    );
    expect(
      parseChallenge(401, 'Bearer resource_metadata="not a url"', "http://127.0.0.1/mcp", 0),
    ).not.toHaveProperty("resourceMetadataUrl");
  });
  it.each([
    "https://rs.example/.well-known/oauth-protected-resource?tenant=a",
    "https://rs.example/.well-known/oauth-protected-resource#frag",
    "https://user:pw@rs.example/.well-known/oauth-protected-resource",
    "ftp://rs.example/.well-known/oauth-protected-resource",
  ])("leaves out a resource_metadata URL the record may not hold: %s", (metadata) => {
    const header = `Bearer resource_metadata="${metadata}"`;
    expect(parseChallenge(401, header, "http://127.0.0.1/mcp", 0)).not.toHaveProperty("resourceMetadataUrl");
  });
  it("drops userinfo from the resource", () => {
    expect(parseChallenge(401, null, "http://user:pw@127.0.0.1/mcp", 0).resource).toBe(
      "http://127.0.0.1/mcp",
    );
  });
});

describe("errorClass", () => {
  it("derives the class from the code alone", () => {
    expect(errorClass(-32602)).toBe("invalid_params");
    expect(errorClass(-32042)).toBe("url_elicitation_required");
    expect(errorClass(-32050)).toBe("server_error");
    expect(errorClass(42)).toBe("application_error");
  });
});

describe("challengeCapturingFetch", () => {
  it("records the challenge, and resolvedAt only when the challenged endpoint later succeeds", async () => {
    const { challengeCapturingFetch } = await import("@/packages/collector/src");
    const statuses = [401, 200, 200];
    const inner = async (url: string | URL) =>
      new Response(null, {
        status: String(url).includes("well-known") ? 200 : (statuses.shift() ?? 200),
        headers: { "www-authenticate": 'Bearer scope="s"' },
      });
    const observer: import("@/packages/collector/src").AuthObserver = {};
    const wrapped = challengeCapturingFetch(observer, inner);
    await wrapped("http://127.0.0.1:1/mcp?x=1", { headers: { authorization: "Bearer old" } });
    expect(observer.challenge).toMatchObject({
      status: 401,
      requiredScope: "s",
      resource: "http://127.0.0.1:1/mcp",
    });
    await wrapped("http://127.0.0.1:1/.well-known/oauth-protected-resource");
    expect(observer.resolvedAt).toBeUndefined();
    await wrapped("http://127.0.0.1:1/mcp?x=2", { headers: { authorization: "Bearer new" } });
    expect(observer.resolvedAt).toBeDefined();
    expect(JSON.stringify(observer)).not.toMatch(/old|new/);
  });
});
