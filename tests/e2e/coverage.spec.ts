import { expect, test } from "@playwright/test";
import { signIn, snap } from "./support/dashboard";

test("coverage shows the share of calls with an outcome receipt per server and tool", async ({ page }) => {
  await signIn(page);
  await page.goto("/coverage?window=all");
  await expect(page.getByRole("table")).toContainText("With outcome receipt");
  await expect(page.getByRole("rowheader", { name: "All" })).toBeVisible();
  await snap(page, "coverage");
});
