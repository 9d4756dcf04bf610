import { describe, expect, it } from "vitest";
import { safeNextPath } from "@/lib/dashboard/safe-next-path";

// Values as the page receives them: `?next=` after the one decoding URLSearchParams does.
const offSite: [string, unknown][] = [
  ["protocol-relative", "//evil.example/"],
  ["protocol-relative with path", "//evil.example/chains"],
  ["backslash after the slash", "/\\evil.example"],
  ["two backslashes", "\\\\evil.example"],
  ["backslash then slash", "\\/evil.example"],
  ["tab between the slashes (/%09/evil.example/)", "/\t/evil.example/"],
  ["newline between the slashes", "/\n/evil.example"],
  ["carriage return between the slashes", "/\r/evil.example"],
  ["tab before everything", "\t//evil.example"],
  ["NUL inside", "/chains\u0000"],
  ["DEL inside", "/chains\u007f"],
  ["percent-encoded slashes (/%2F%2Fevil)", "/%2F%2Fevil.example"],
  ["lower-case percent-encoded slash", "/%2fevil.example"],
  ["percent-encoded backslash (/%5Cevil)", "/%5Cevil.example"],
  ["percent-encoded tab", "/%09/evil.example"],
  ["double percent-encoded slashes", "/%252F%252Fevil.example"],
  ["dot segments that resolve to //", "/.//evil.example"],
  ["dot-dot segments that resolve to //", "/..//evil.example"],
  ["encoded dot-dot that resolves to an encoded slash", "/%2e%2e/%2Fevil.example"],
  ["absolute https URL", "https://evil.example/"],
  ["absolute URL without slashes", "https:evil.example"],
  ["javascript: URL", "javascript:alert(document.domain)"],
  ["data: URL", "data:text/html,<script>alert(1)</script>"],
  ["relative path", "chains"],
  ["leading space", " //evil.example"],
  ["empty", ""],
  ["null", null],
  ["undefined", undefined],
  ["repeated parameter", ["/chains", "//evil.example"]],
  ["the sign-in page (would loop)", "/sign-in?next=/chains"],
  ["the setup page", "/setup"],
  ["too long", `/${"a".repeat(2048)}`],
];

const onSite: [string, string, string][] = [
  ["the overview", "/", "/"],
  ["a page with a query", "/coverage?window=24h", "/coverage?window=24h"],
  ["a chain with an encoded id", "/chains/chain%3Areports-timeout-h", "/chains/chain%3Areports-timeout-h"],
  ["a chain id holding a lone percent", "/chains/a%25b", "/chains/a%25b"],
  ["a query that holds a URL", "/chains?q=https://x.example", "/chains?q=https://x.example"],
  ["a fragment", "/chains#top", "/chains#top"],
  ["dot segments inside the site", "/chains/../coverage", "/coverage"],
  ["a space, re-serialised", "/chains?q=a b", "/chains?q=a%20b"],
  ["a page whose name starts like sign-in", "/sign-in-help", "/sign-in-help"],
];

describe("safeNextPath", () => {
  it.each(offSite)("%s → /", (_name, value) => {
    expect(safeNextPath(value)).toBe("/");
  });

  it.each(onSite)("%s stays on the site", (_name, value, expected) => {
    expect(safeNextPath(value)).toBe(expected);
  });

  it("every answer resolves to this origin in a browser's URL parser", () => {
    const origin = "http://127.0.0.1:3000";
    for (const [, value] of [...offSite, ...onSite]) {
      const next = safeNextPath(value);
      expect(new URL(next, origin).origin).toBe(origin);
      expect(next).toMatch(/^\/(?![/\\])/);
    }
  });
});
