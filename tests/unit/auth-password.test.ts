import { describe, expect, it } from "vitest";
import { dummyPasswordHash, hashPassword, verifyPassword } from "@/lib/server/auth/password";

// Everything but the salt and the hash: the scheme, the cost parameters and the lengths.
const shape = (stored: string) => {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  return { scheme, n, r, p, saltLength: salt?.length, hashLength: hash?.length };
};

describe("the dummy hash an unknown username is checked against", () => {
  it("has the scheme, cost and lengths of a real user's hash, so checking it costs the same", async () => {
    const real = await hashPassword("correct horse battery");
    expect(shape(await dummyPasswordHash())).toEqual(shape(real));
    expect(shape(real)).toEqual({
      scheme: "scrypt",
      n: "16384",
      r: "8",
      p: "1",
      saltLength: 22,
      hashLength: 43,
    });
  });

  it("matches no password, and is made once per process", async () => {
    const dummy = await dummyPasswordHash();
    expect(await verifyPassword("", dummy)).toBe(false);
    expect(await verifyPassword("correct horse battery", dummy)).toBe(false);
    expect(await dummyPasswordHash()).toBe(dummy);
  });
});
