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
    [{ RECEIPT_RETENTION_DAYS: "0" }, "RECEIPT_RETENTION_DAYS"],
    [{ RECEIPT_RETENTION_DAYS: "thirty" }, "RECEIPT_RETENTION_DAYS"],
    [{ RECEIPT_ALERT_RETENTION_DAYS: "-1" }, "RECEIPT_ALERT_RETENTION_DAYS"],
    [{ RECEIPT_RETENTION_BATCH: "0" }, "RECEIPT_RETENTION_BATCH"],
    [{ RECEIPT_RETENTION: "yes" }, "RECEIPT_RETENTION"],
    [{ RECEIPT_OTLP_SPAN_RETENTION_DAYS: "0" }, "RECEIPT_OTLP_SPAN_RETENTION_DAYS"],
  ])("rejects %o naming the variable %s", (source, name) => {
    expect(() => parseEnv(source)).toThrow(EnvError);
    expect(() => parseEnv(source)).toThrow(new RegExp(`${name}:`));
  });
});

describe("one schema for every variable", () => {
  it("keeps chains 30 days and resolved alerts and deliveries 90 by default", () => {
    const env = parseEnv({});
    expect([env.RECEIPT_RETENTION, env.RECEIPT_RETENTION_DAYS, env.RECEIPT_ALERT_RETENTION_DAYS]).toEqual([
      "1",
      30,
      90,
    ]);
  });

  it("gives the alert, job and sign-in settings their production defaults", () => {
    const env = parseEnv({});
    expect([
      env.RECEIPT_ALERT_TICK_MS,
      env.RECEIPT_DELIVERY_TIMEOUT_MS,
      env.RECEIPT_DELIVERY_PER_TARGET,
    ]).toEqual([5000, 10_000, 4]);
    expect([env.RECEIPT_DEADLINE_TICK_MS, env.RECEIPT_DISABLE_WORKERS, env.RECEIPT_TRUST_PROXY]).toEqual([
      1000,
      "0",
      0,
    ]);
  });

  it("reports every bad variable at once, each by name", () => {
    const source = { RECEIPT_DELIVERY_TIMEOUT_MS: "5", RECEIPT_WAKE_UPS: "yes", RECEIPT_TRUST_PROXY: "-1" };
    expect(() => parseEnv(source)).toThrow(
      /RECEIPT_DELIVERY_TIMEOUT_MS:.*RECEIPT_WAKE_UPS:.*RECEIPT_TRUST_PROXY:|RECEIPT_WAKE_UPS:/s,
    );
    try {
      parseEnv(source);
    } catch (error) {
      const message = (error as Error).message;
      for (const name of Object.keys(source)) expect(message).toContain(`${name}:`);
    }
  });
});
