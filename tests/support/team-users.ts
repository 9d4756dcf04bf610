import pg from "pg";
import type { Role } from "@/lib/auth/roles";
import { hashPassword } from "@/lib/server/auth/password";

export type TeamUser = { id: string; username: string; password: string; role: Role };

/**
 * Puts a user with `role` straight into the test database (the invitation flow has tests of its own), so a test of
 * what a role may do does not depend on how people join.
 */
export async function createTeamUser(
  databaseUrl: string,
  username: string,
  role: Role,
  password = `${username}-password`,
): Promise<TeamUser> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      "insert into users (id, username, password_hash, role) values (gen_random_uuid(), $1, $2, $3) returning id",
      [username, await hashPassword(password), role],
    );
    return { id: rows[0]?.id ?? "", username, password, role };
  } finally {
    await client.end();
  }
}

/** Signs in with a password and returns the session cookie (`receipt_session=…`). */
export async function signInCookie(baseUrl: string, username: string, password: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ username, password }),
  });
  if (!response.ok) throw new Error(`sign-in as ${username}: ${response.status} ${await response.text()}`);
  return (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}
