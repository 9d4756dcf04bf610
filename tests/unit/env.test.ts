import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/server/env";

describe("environment validation", () => {
  it("defaults PORT to 3000 and leaves DATABASE_URL unset for the embedded database", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it("treats an empty DATABASE_URL as unset", () => {
    expect(parseEnv({ DATABASE_URL: "" }).DATABASE_URL).toBeUndefined();
  });

  it.each([
    [{ PORT: "http" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ RECEIPT_ADMIN_PASSWORD: "short" }, "RECEIPT_ADMIN_PASSWORD"],
  ])("rejects %o naming the variable %s", (source, name) => {
    expect(() => parseEnv(source)).toThrow(EnvError);
    expect(() => parseEnv(source)).toThrow(new RegExp(`${name}:`));
  });
});
