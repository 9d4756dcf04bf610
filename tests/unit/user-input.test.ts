import { describe, expect, it } from "vitest";
import { ZAcceptInviteBody, ZCreateInviteBody, ZUpdateUserBody } from "@/lib/auth/user-input";

// The users API's input rules, which the dashboard's forms show next to their fields.
describe("user input rules", () => {
  it("an invitation lasts 72 hours unless told otherwise, 1 to 168 whole hours", () => {
    expect(ZCreateInviteBody.parse({ role: "viewer" })).toEqual({ role: "viewer", expiresInHours: 72 });
    for (const hours of [0, 169, 2.5])
      expect(ZCreateInviteBody.safeParse({ role: "viewer", expiresInHours: hours }).success).toBe(false);
  });

  it("a display name is trimmed, and an empty one clears it", () => {
    expect(ZUpdateUserBody.parse({ displayName: "  Ada  " })).toEqual({ displayName: "Ada" });
    expect(ZUpdateUserBody.parse({ displayName: "   " })).toEqual({ displayName: null });
  });

  it("a change must change something, and nothing the body does not name", () => {
    expect(ZUpdateUserBody.safeParse({}).success).toBe(false);
    expect(ZUpdateUserBody.safeParse({ role: "owner" }).success).toBe(false);
    expect(ZUpdateUserBody.safeParse({ passwordHash: "x" }).success).toBe(false);
  });

  it("joining needs a username of the sign-in alphabet and a password of 8 characters or more", () => {
    expect(ZAcceptInviteBody.safeParse({ username: "ada.l", password: "12345678" }).success).toBe(true);
    expect(ZAcceptInviteBody.safeParse({ username: "ada l", password: "12345678" }).success).toBe(false);
    expect(ZAcceptInviteBody.safeParse({ username: "ada", password: "1234567" }).success).toBe(false);
  });
});
