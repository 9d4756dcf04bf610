import { expect, test } from "@playwright/test";

test("the home page loads with the product name and navigation", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("link", { name: /Receipt/ }).first()).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toContainText("Chains");
  await page.screenshot({ path: "test-results/screens/home.png", fullPage: true });
});

test("the health endpoint reports the database reachable", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: "ok", database: "ok" });
});
