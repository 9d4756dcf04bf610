import { expect as baseExpect, type Page, test } from "@playwright/test";
import { DESKTOP, PHONE, signIn, snap } from "./support/dashboard";

// Routing kept by hand on the page: edit a route in place, reorder it (keyboard too), delete it after a confirmation
// that names its subroutes, see the server's problem next to the field, edit inhibition rules, and view, compare and
// restore versions. Every change is a new config version; the shared e2e database may hold other specs' routes.
// This machine is shared: give the page time to answer, and each test room for a dozen saves.
const expect = baseExpect.configure({ timeout: 20_000 });
test.beforeEach(({ page: _page }, testInfo) => testInfo.setTimeout(180_000));
const tag = `re${Date.now() % 1_000_000}`;
const names = { a: `${tag} alpha`, b: `${tag} beta`, c: `${tag} gamma`, parent: `${tag} parent` };
const child = `${tag} child`;

const node = (page: Page, name: string) =>
  page.locator(`[data-testid="route-node"][data-route-name="${name}"]`);
const myRouteOrder = (page: Page) =>
  page
    .locator('[data-testid="route-node"]')
    .evaluateAll(
      (nodes, prefix) =>
        nodes
          .map((n) => (n as HTMLElement).dataset.routeName ?? "")
          .filter((name) => name.startsWith(prefix)),
      tag,
    );

async function addRoute(page: Page, name: string, matcher: string) {
  const form = page.getByRole("form", { name: "Add a route" });
  await form.getByLabel("Route name").fill(name);
  await form.getByLabel("Matchers, one per line").fill(matcher);
  await form.getByLabel("Position").selectOption({ label: "last — after every route" });
  await form.getByRole("button", { name: "Add route" }).click();
  await expect(node(page, name)).toBeVisible();
  // The form clears itself once the save is in: typing the next route before that (a busy machine) loses the input.
  await expect(form.getByLabel("Route name")).toHaveValue("");
  await expect(form.getByLabel("Matchers, one per line")).toHaveValue("");
}

/** Screenshots at 1280 and 390 px, then: nothing in the page's content is wider than a 390 px phone. */
async function snapAndFit(page: Page, name: string) {
  await snap(page, name);
  await page.setViewportSize(PHONE);
  const tooWide = await page.locator("#main").evaluate((main) => {
    const found: string[] = [];
    for (const element of main.querySelectorAll("*")) {
      // Inside a box that scrolls or clips, content scrolls there: it does not widen the page.
      let up = element.parentElement;
      while (up && up !== main && getComputedStyle(up).overflowX === "visible") up = up.parentElement;
      if (up && up !== main) continue;
      const box = element.getBoundingClientRect();
      if (box.width > 0 && box.right > window.innerWidth + 0.5)
        found.push(
          `${element.tagName.toLowerCase()}.${String(element.className)} ${Math.round(box.right)}px`,
        );
    }
    return found.slice(0, 5);
  });
  await page.setViewportSize(DESKTOP);
  expect(tooWide).toEqual([]);
}

/** A modal is drawn over the viewport: pictures of what a person sees, at 1280 and 390 px, and it fits the phone. */
async function snapModal(page: Page, name: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    const box = await page.getByRole("dialog").boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= viewport.width).toBe(true);
    await page.screenshot({ path: `test-results/screens/${name}-${viewport.width}.png` });
  }
  await page.setViewportSize(DESKTOP);
}

/** Another admin saves meanwhile (a parent route with a subroute), through the API with the page's session. */
async function saveElsewhere(page: Page) {
  const read = await page.request.get("/api/v1/routing/config");
  const { version, config } = (await read.json()) as {
    version: string;
    config: { route: { routes: unknown[] } };
  };
  config.route.routes.push({
    name: names.parent,
    matchers: [`label.run="${tag}-parent"`],
    routes: [{ name: child, matchers: ['state="tool_failed"'] }],
  });
  const saved = await page.request.put("/api/v1/routing/config?comment=elsewhere", {
    data: config,
    headers: { "if-match": `"${version}"` },
  });
  expect(saved.status(), await saved.text()).toBe(200);
}

test("edit, reorder and delete routes; the server's problem shows at its field; a conflict reloads", async ({
  page,
}) => {
  await signIn(page, "/routing");
  await expect(page.getByRole("heading", { name: "Alert routing" })).toBeVisible();
  await addRoute(page, names.a, `label.run="${tag}-a"`);
  await addRoute(page, names.b, `label.run="${tag}-b"`);
  await addRoute(page, names.c, `label.run="${tag}-c"`);
  expect(await myRouteOrder(page)).toEqual([names.a, names.b, names.c]);

  // A route without matchers anywhere but last is called out before saving.
  const add = page.getByRole("form", { name: "Add a route" });
  await expect(add.getByRole("alert")).toHaveCount(0); // an untouched form does not warn yet
  await add.getByLabel("Route name").fill(`${tag} catch-all`);
  await add.getByLabel("Position").selectOption({ index: 0 });
  await expect(add.getByRole("alert")).toContainText("must be the last one");
  await add.getByLabel("Position").selectOption({ label: "last — after every route" });
  await expect(add.getByRole("alert")).toHaveCount(0);
  await expect(add).toContainText("this is the catch-all");
  await add.getByLabel("Route name").fill("");

  // Edit in place: the form holds the route's options; a matcher the server refuses is shown under the field.
  await page.getByRole("button", { name: `Edit route ${names.b}` }).click();
  const edit = page.getByRole("form", { name: `Edit route ${names.b}` });
  await expect(edit.getByLabel("Matchers, one per line")).toHaveValue(`label.run="${tag}-b"`);
  await edit.getByLabel("Matchers, one per line").fill("server=nope");
  await edit.getByRole("button", { name: "Save route" }).click();
  const matchers = edit.getByLabel("Matchers, one per line");
  await expect(matchers).toHaveAttribute("aria-describedby", /issues/);
  const problemId = (await matchers.getAttribute("aria-describedby")) ?? "";
  await expect(page.locator(`[id="${problemId}"]`)).toBeVisible();
  await edit.getByLabel("Route name").fill(`${names.b} edited`);
  await edit.getByLabel("Matchers, one per line").fill(`label.run="${tag}-b2"\nstate="tool_failed"`);
  await edit.getByLabel("Group wait (optional)").fill("45s");
  await edit.getByLabel("Severity override").selectOption("warning");
  await snapAndFit(page, "routing-edit-form");
  await edit.getByRole("button", { name: "Save route" }).click();
  names.b = `${names.b} edited`;
  await expect(node(page, names.b)).toContainText(`label.run="${tag}-b2"`);
  await expect(node(page, names.b)).toContainText("severity warning");
  await expect(node(page, names.b)).toContainText("45s");

  // Reorder with the keyboard: the moved route's button keeps the focus.
  const up = page.getByRole("button", { name: `Move route ${names.b} up` });
  // The tree re-renders as the last save's refetch lands: focus the button once it is settled and enabled.
  await expect(up).toBeEnabled();
  await up.focus();
  await expect(up).toBeFocused();
  await page.keyboard.press("Enter");
  await expect.poll(() => myRouteOrder(page)).toEqual([names.b, names.a, names.c]);
  await expect(page.getByRole("button", { name: `Move route ${names.b} up` })).toBeFocused();
  await page.getByRole("button", { name: `Move route ${names.a} down` }).click();
  await expect.poll(() => myRouteOrder(page)).toEqual([names.b, names.c, names.a]);

  // Another admin saves meanwhile: the next edit here is refused, explained, and the page reloads the config.
  await saveElsewhere(page);
  await page.getByRole("button", { name: `Delete route ${names.c}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete route" }).click();
  await expect(
    page.locator("#tree").getByRole("alert").filter({ hasText: "changed elsewhere" }),
  ).toBeVisible();
  // Only the area that made the change reports it.
  await expect(page.locator("#channels").getByRole("alert")).toHaveCount(0);
  await expect(node(page, names.parent)).toBeVisible();
  await expect(node(page, names.c)).toBeVisible();

  // Delete asks first, naming the subroutes; Cancel keeps the route.
  await page.getByRole("button", { name: `Delete route ${names.parent}` }).click();
  const dialog = page.getByRole("dialog", { name: `Delete route "${names.parent}"?` });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(child);
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await snapModal(page, "routing-delete-dialog");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(node(page, names.parent)).toBeVisible();
  await page.getByRole("button", { name: `Delete route ${names.parent}` }).click();
  await page.keyboard.press("Escape");
  await expect(node(page, names.parent)).toBeVisible();
  await page.getByRole("button", { name: `Delete route ${names.parent}` }).click();
  await dialog.getByRole("button", { name: "Delete route" }).click();
  await expect(node(page, names.parent)).toHaveCount(0);
  await expect(node(page, child)).toHaveCount(0);
  expect(await myRouteOrder(page)).toEqual([names.b, names.c, names.a]);
  await snapAndFit(page, "routing-page");
});

test("inhibition rules: add, edit (a protected state is refused at its field), delete after a confirmation", async ({
  page,
}) => {
  await signIn(page, "/routing");
  const rule = `${tag} rule`;
  const add = page.getByRole("form", { name: "Add an inhibition rule" });
  await add.getByLabel("Rule name").fill(rule);
  await add.getByLabel("While an alert matching (one per line)").fill(`label.run="${tag}-src"`);
  await add.getByLabel("fires, mute alerts matching (one per line)").fill(`state="tool_failed"`);
  await add.getByLabel("Equal labels (comma-separated)").fill("server");
  await add.getByRole("button", { name: "Add rule" }).click();
  const row = page.locator(`[data-testid="inhibit-rule"][data-rule-name="${rule}"]`);
  await expect(row).toContainText('state="tool_failed"');

  await page.getByRole("button", { name: `Edit inhibition rule ${rule}` }).click();
  const edit = page.getByRole("form", { name: `Edit inhibition rule ${rule}` });
  await edit.getByLabel("fires, mute alerts matching (one per line)").fill(`label.run="${tag}-dst"`);
  await edit.getByRole("button", { name: "Save rule" }).click();
  await expect(edit.locator(".field-error").first()).toContainText("effect_unknown");
  await edit
    .getByLabel("fires, mute alerts matching (one per line)")
    .fill(`label.run="${tag}-dst"\nstate=~"tool_failed|protocol_error"`);
  await edit.getByRole("button", { name: "Save rule" }).click();
  await expect(row).toContainText(`label.run="${tag}-dst"`);

  await page.getByRole("button", { name: `Delete inhibition rule ${rule}` }).click();
  const dialog = page.getByRole("dialog", { name: `Delete inhibition rule "${rule}"?` });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(row).toBeVisible();
  await page.getByRole("button", { name: `Delete inhibition rule ${rule}` }).click();
  await dialog.getByRole("button", { name: "Delete rule" }).click();
  await expect(row).toHaveCount(0);
});

test("versions: view one masked, diff it against the current config, restore it as a new version", async ({
  page,
}) => {
  await signIn(page, "/routing");
  const deleted = `${tag} doomed`;
  await addRoute(page, deleted, `label.run="${tag}-doomed"`);
  await page.getByRole("button", { name: `Delete route ${deleted}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete route" }).click();
  await expect(node(page, deleted)).toHaveCount(0);

  const rows = page.locator('[data-testid="config-version-row"]');
  const added = rows.filter({ hasText: `add route ${deleted}` });
  await expect(added).toHaveCount(1);
  const version = (await added.getAttribute("data-version")) ?? "";
  await expect(rows.filter({ hasText: `delete route ${deleted}` })).toHaveAttribute("aria-current", "true");
  await page.getByRole("button", { name: `View version ${version}` }).click();
  const detail = page.getByTestId("version-detail");
  await expect(detail.getByRole("heading", { name: `Version ${version}` })).toBeVisible();
  const diff = detail.getByRole("list", { name: /^Changes from v\d+ to the current config/ });
  await expect(diff.locator("del").filter({ hasText: deleted })).toHaveCount(1);
  await expect(diff.locator("del").first()).toContainText("removed:");
  await snapAndFit(page, "routing-version-diff");
  await detail.getByLabel("Whole config (secrets masked)").check();
  await expect(detail.getByTestId("version-config")).toContainText(deleted);

  await detail.getByRole("button", { name: `Restore version ${version}` }).click();
  await page
    .getByRole("dialog")
    .getByRole("button", { name: `Restore version ${version}` })
    .click();
  await expect(page.getByRole("status").filter({ hasText: "Restored as version" })).toBeVisible();
  await expect(node(page, deleted)).toBeVisible();
  await expect(rows.first()).toContainText(`Restore version ${version}`);
  await expect(rows.first()).toHaveAttribute("aria-current", "true");
});
