import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import type { Role } from "@/lib/auth/roles";
import { startEmbeddedPostgres } from "@/lib/server/db/embedded";
import { createTeamUser, type TeamUser } from "@/tests/support/team-users";
import { e2eAppInfoPath } from "./app-info";
import { untilHydrated } from "./dashboard";

/**
 * The e2e app's database (its embedded PostgreSQL, already running: this finds it, starts nothing). Until people
 * join by invitation in the e2e flow, specs that need a viewer or a responder put them there directly.
 */
export async function e2eDatabaseUrl(baseURL: string): Promise<string> {
  const { dataDir } = JSON.parse(readFileSync(e2eAppInfoPath(new URL(baseURL).port), "utf8")) as {
    dataDir: string;
  };
  return (await startEmbeddedPostgres(path.join(dataDir, "pg"))).url;
}

/** A user with `role` and a name of its own (the e2e database is shared by every spec). */
export async function createE2eUser(baseURL: string, role: Role): Promise<TeamUser> {
  return createTeamUser(await e2eDatabaseUrl(baseURL), `${role}-${randomBytes(4).toString("hex")}`, role);
}

/** Signs in through the form as `user`; lands on `next`. */
export async function signInAs(page: Page, user: TeamUser, next = "/") {
  await page.goto(next === "/" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(next)}`);
  await untilHydrated(page);
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === next.split("?")[0]);
}
