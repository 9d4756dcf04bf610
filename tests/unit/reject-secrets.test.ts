/**
 * Free text typed by people (triage notes, silence and routing-config comments, lease holders) goes through the same
 * credential guard as records: each gap issue 39 found is refused there too, and `key=value` prose is not.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/server/http/api-error";
import { rejectSecrets } from "@/lib/server/http/reject-secrets";
import {
  base64Of,
  base64UrlOf,
  EVERYDAY_VALUES,
  fullwidth,
  hexOf,
  join,
} from "@/tests/support/secret-samples";

const GITHUB_TOKEN = join("ghp_", "A1b2C3d4E5f6".repeat(3));

describe("rejectSecrets", () => {
  it.each([
    [
      "a JWT with a spaced header",
      "jwt",
      join(base64UrlOf('{"alg": "HS256"}'), ".", base64UrlOf('{ "sub": "1" }'), ".x"),
    ],
    ["Bearer and 7 characters", "bearer_token", join("use Bearer ", "x7Kp2Qa", " for this")],
    ["a base64 token", "github_token", join("rotated ", base64Of(GITHUB_TOKEN))],
    ["a hex token", "github_token", hexOf(GITHUB_TOKEN)],
    ["a fullwidth AWS key id", "aws_access_key_id", join(fullwidth("AKIA"), "IOSFODNN7EXAMPLE")],
    ["a named blob", "credential_assignment", join("client_secret: ", "Zx8Kq2Lm9Pw4Rt7Vb3Nc6Hd1")],
  ])("refuses %s in a comment: 422 secret_detected at its path, never echoed", (_, pattern, value) => {
    let thrown: unknown;
    try {
      rejectSecrets([
        ["$.note", "fine"],
        ["$.query.comment", value],
      ]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const error = thrown as ApiError;
    expect([error.status, error.code]).toEqual([422, "secret_detected"]);
    expect(error.issues).toEqual([
      { path: "$.query.comment", code: "secret_detected", message: `looks like a credential (${pattern})` },
    ]);
    expect(JSON.stringify({ message: error.message, issues: error.issues })).not.toContain(value);
  });

  it.each(EVERYDAY_VALUES)("lets everyday prose through: %s", (value) => {
    expect(() => rejectSecrets([["$.note", value]])).not.toThrow();
  });
});
