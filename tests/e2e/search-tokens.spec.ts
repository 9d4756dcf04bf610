import { expect as baseExpect, type Page, test } from "@playwright/test";
import type { HealthRecord } from "@/lib/contract";
import { liveCase } from "@/tests/support/dashboard-records";
import { ingest, signIn, snap } from "./support/dashboard";

// The header box's tokens: a stored value picked from the suggestions with the keyboard, `/` for a fresh query, a
// token query landing on the filtered chain list, a prefix finding an id. Names of this run's own: the e2e
// database is shared with every other spec.
const run = `tokens-${Date.now()}`;
const server = `a-srv-${run}`;

function onServer(tag: string, state: string, requestId: string): HealthRecord {
  const record = liveCase(`${run}-${tag}`, state);
  if (!record.session.server || !record.call) throw new Error("the seed cases name a server and a call");
  record.session.server.name = server;
  record.call.requestId = requestId;
  return { ...record, labels: { ...record.labels, spec: run } };
}
const falseSuccess = onServer("false", "false_success", `req-${run}-false`);
const healthy = onServer("healthy", "healthy", `req-${run}-healthy`);

test.describe.configure({ timeout: 180_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signIn(page);
  await ingest(page.request, [falseSuccess, healthy]);
  await page.close();
});

const searchBox = (page: Page) => page.getByRole("combobox", { name: /Find a chain/ });

test("a server is picked from the suggestions with the keyboard, and lands on the filtered list", async ({
  page,
}) => {
  await signIn(page, "/coverage");
  const box = searchBox(page);
  await box.fill(`server:${server.slice(0, -3)}`);
  const list = page.getByRole("listbox", { name: "Suggestions" });
  const option = list.getByRole("option", { name: new RegExp(server) });
  await expect(option).toBeVisible();
  await expect(box).toHaveAttribute("aria-expanded", "true");
  await box.press("ArrowDown");
  await expect(option).toHaveAttribute("aria-selected", "true");
  await expect(box).toHaveAttribute("aria-activedescendant", (await option.getAttribute("id")) ?? "");
  await snap(page, "search-token-suggestions");
  await box.press("Enter");
  await expect(box).toHaveValue(`server:${server} `);
  await expect(list).toBeHidden();
  // Esc closes the list without touching the text.
  await box.pressSequentially("state:fal");
  await expect(list.getByRole("option", { name: /false_success/ })).toBeVisible();
  await box.press("Escape");
  await expect(list).toBeHidden();
  await expect(box).toHaveValue(`server:${server} state:fal`);
  await box.pressSequentially("se_success");
  await box.press("Escape");
  await box.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/chains\\?state=false_success&server=${server}$`));
  await expect(page.getByTestId("chain-total")).toHaveText("1 chain");
  await expect(page.locator(`tr[data-chain-id="${falseSuccess.chainId}"]`)).toBeVisible();
  await expect(page.getByLabel("Server", { exact: true })).toHaveValue(server);
});

test("a label key, then its stored value, picked from the suggestions, land on the list with that label", async ({
  page,
}) => {
  await signIn(page, "/coverage");
  const box = searchBox(page);
  await box.fill("label:spe");
  const list = page.getByRole("listbox", { name: "Suggestions" });
  await expect(list.getByRole("option", { name: /^spec:…/ })).toBeVisible();
  await box.press("ArrowDown");
  await box.press("Enter");
  await expect(box).toHaveValue("label:spec:");
  await box.pressSequentially(run.slice(0, 8));
  const value = list.getByRole("option", { name: new RegExp(`spec:${run}`) });
  await expect(value).toBeVisible();
  await box.press("ArrowUp");
  await expect(list.getByRole("option", { selected: true })).toHaveText(/^spec:/);
  await value.click();
  await expect(box).toHaveValue(`label:spec:${run} `);
  await box.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/chains\\?label=spec%3A${run}$`));
  await expect(page.getByTestId("chain-total")).toHaveText("2 chains");
});

test("`/` starts a fresh query: the old text is selected and typing replaces it", async ({ page }) => {
  await signIn(page, "/coverage");
  const box = searchBox(page);
  await box.fill("old words");
  await box.evaluate((input) => (input as HTMLInputElement).blur());
  await expect(box).not.toBeFocused();
  await expect(async () => {
    await page.locator("body").press("/");
    await expect(box).toBeFocused({ timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await page.keyboard.type(`req-${run}-h`);
  await expect(box).toHaveValue(`req-${run}-h`);
  await box.press("Enter");
  // A prefix names one chain but is no exact id: the results page shows it as a prefix match.
  await expect(page).toHaveURL(/\/search\?q=/);
  await expect(page.locator(`tr[data-chain-id="${healthy.chainId}"]`)).toBeVisible();
  await expect(page.getByRole("heading", { name: "JSON-RPC request id" })).toBeVisible();
});

test("a refused token is explained on the results page, beside the syntax", async ({ page }) => {
  await signIn(page, `/search?q=${encodeURIComponent("state:bogus")}`);
  const alert = page.getByRole("alert").filter({ hasText: "Could not load" });
  await expect(alert).toContainText("unknown state `bogus`");
  await expect(alert).toContainText("invalid_search");
  await signIn(page, "/search");
  await expect(page.locator("code", { hasText: "label:team:reports" })).toBeVisible();
});
