import { expect, test } from "@playwright/test";
import { liveCase } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

test("coverage shows the share of calls with an outcome receipt per server and tool", async ({ page }) => {
  await signIn(page);
  await ingest(page.request, [liveCase(`coverage-${Date.now()}`, "healthy")]);
  await page.goto("/coverage?window=all");
  const table = page.getByRole("table", { name: "Outcome coverage per server and tool" });
  await expect(table).toContainText("With outcome receipt");
  await expect(page.getByRole("rowheader", { name: "All" })).toBeVisible();
  await snap(page, "coverage");
});

test("coverage lists the OpenTelemetry exports refused in its window, by code", async ({ page }) => {
  await signIn(page);
  const created = await page.request.post("/api/v1/keys", {
    data: { name: `e2e-otel-${Date.now()}`, scopes: ["ingest"] },
  });
  expect(created.status()).toBe(201);
  const { key } = (await created.json()) as { key: string };
  const refused = await page.request.post("/v1/traces", {
    data: { resourceSpans: 5 },
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  });
  expect(refused.status()).toBe(400);
  await page.goto("/coverage?window=24h");
  const refusals = page.getByRole("region", { name: "OpenTelemetry spans refused" });
  await expect(refusals).toBeVisible();
  const row = refusals
    .getByRole("row")
    .filter({ has: page.getByRole("rowheader", { name: "invalid_otlp" }) });
  await expect(row).toHaveCount(1);
  await expect(row.getByRole("cell").nth(1)).not.toHaveText("0");
});
