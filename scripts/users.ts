// npm run --silent users -- create --username NAME [--role viewer|responder|admin]
//   Creates a user on the app's database (RECEIPT_DATA_DIR or DATABASE_URL, as `npm start` finds it): the way in when
//   no admin can sign in (a seeded demo user closes nothing: /setup stays open until an admin exists, and this works
//   either way). The password comes from RECEIPT_NEW_PASSWORD, else from the first line of standard input; never an
//   argument, which other users of the machine could read. Exit 0 created, 1 refused (name taken, bad input), 2 could
//   not run.
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { ZRole } from "../lib/auth/roles";
import { hashPassword } from "../lib/server/auth/password";
import { openCliDatabase } from "./cli-database";

const USAGE = "usage: npm run --silent users -- create --username NAME [--role viewer|responder|admin]";

function fail(code: number, message: string): never {
  console.error(message);
  process.exit(code);
}

const parsed = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { username: { type: "string" }, role: { type: "string", default: "admin" } },
    });
  } catch (error) {
    return fail(2, `${(error as Error).message}\n${USAGE}`);
  }
})();
const [command, ...extra] = parsed.positionals;
if (command !== "create" || extra.length > 0) fail(2, USAGE);
const username = parsed.values.username ?? "";
if (!/^[A-Za-z0-9._-]{1,64}$/.test(username)) fail(1, "--username: 1–64 letters, digits, '.', '_' or '-'");
const role = ZRole.safeParse(parsed.values.role);
if (!role.success) fail(1, "--role must be viewer, responder or admin");

async function readPassword(): Promise<string> {
  if (process.env.RECEIPT_NEW_PASSWORD) return process.env.RECEIPT_NEW_PASSWORD;
  if (process.stdin.isTTY) process.stderr.write(`password for ${username}: `);
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return "";
}

const password = await readPassword();
if (password.length < 8)
  fail(1, "the password must be at least 8 characters (RECEIPT_NEW_PASSWORD or standard input)");

const db = await openCliDatabase();
let created = false;
try {
  const { createUserIfNameFree } = await import("../lib/server/db/users");
  created = await createUserIfNameFree(username, await hashPassword(password), role.data);
} finally {
  const { getPrisma } = await import("../lib/server/db/client");
  await getPrisma().$disconnect();
  await db.stop();
}
if (!created) fail(1, `a user named '${username}' exists already (names are compared without case)`);
console.log(`created ${role.data} ${username}`);
