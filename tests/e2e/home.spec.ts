import { expect, test } from "@playwright/test";
import { signIn, snap } from "./support/dashboard";

test("the home page shows the product name and navigation once signed in", async ({ page }) => {
  await signIn(page, "/");
  await expect(page.getByRole("link", { name: /Receipt/ }).first()).toBeVisible();
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const section of [
    "Overview",
    "Chains",
    "False success",
    "Effect unknown",
    "Coverage",
    "Routing",
    "Settings",
  ]) {
    await expect(nav.getByRole("link", { name: section })).toBeVisible();
  }
  await snap(page, "home");
});

test("the health endpoint reports the database reachable", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: "ok", database: "ok" });
});
