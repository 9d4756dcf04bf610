import { randomBytes } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { isDatabaseUnavailable } from "@/lib/server/db/availability";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import { createTestDatabase, databaseUrl } from "@/tests/support/test-database";

// Real errors from a real PostgreSQL, through node-postgres and through Prisma's pg adapter (the two ways the app
// queries): the ones that mean "unreachable, try again" are told apart from the request's or the code's own faults.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let admin: pg.Client;
const limitedRole = `receipt_limited_${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  db = await createTestDatabase();
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query(`create role "${limitedRole}" login password 'limited' connection limit 0`);
});
afterAll(async () => {
  await admin?.query(`drop role if exists "${limitedRole}"`).catch(() => {});
  await admin?.end();
  await db?.drop();
});

async function closedPortUrl(): Promise<string> {
  const url = new URL(db.url);
  url.port = String(await portOutsideEphemeralRange());
  return url.toString();
}

function limitedRoleUrl(): string {
  const url = new URL(db.url);
  url.username = limitedRole;
  url.password = "limited";
  return url.toString();
}

async function errorOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected the work to fail");
}

async function withPrisma<T>(url: string, work: (prisma: PrismaClient) => Promise<T>): Promise<T> {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
  try {
    return await work(prisma);
  } finally {
    await prisma.$disconnect();
  }
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Runs `query` on a fresh connection and ends that connection from the server side while it runs. */
async function terminatedMidQuery(run: (url: string) => Promise<unknown>): Promise<unknown> {
  const marker = `terminate_me_${randomBytes(4).toString("hex")}`;
  const pending = errorOf(() => run(marker));
  for (let found = 0; found === 0; ) {
    await new Promise((r) => setTimeout(r, 50));
    const result = await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where query like $1 and pid <> pg_backend_pid()",
      [`%${marker}%`],
    );
    found = result.rowCount ?? 0;
  }
  return pending;
}

describe("errors that mean the database is unavailable", () => {
  it("connection refused (server down): node-postgres ECONNREFUSED and Prisma P1001", async () => {
    const url = await closedPortUrl();
    const pgError = await withClient(url, (client) => errorOf(() => client.connect()));
    expect((pgError as { code?: string }).code).toBe("ECONNREFUSED");
    expect(isDatabaseUnavailable(pgError)).toBe(true);
    const model = await withPrisma(url, (prisma) => errorOf(() => prisma.user.findMany()));
    expect((model as { code?: string }).code).toBe("P1001");
    expect(isDatabaseUnavailable(model)).toBe(true);
    const raw = await withPrisma(url, (prisma) => errorOf(() => prisma.$queryRaw`select 1`));
    expect(isDatabaseUnavailable(raw)).toBe(true);
    const transaction = await withPrisma(url, (prisma) =>
      errorOf(() => prisma.$transaction(async (tx) => tx.user.count())),
    );
    expect(isDatabaseUnavailable(transaction)).toBe(true);
  });

  it("a session ended by the server mid-query (57P01 admin shutdown), and the dead client afterwards", async () => {
    let dead: pg.Client | undefined;
    const pgError = await terminatedMidQuery(async (marker) => {
      dead = new pg.Client({ connectionString: db.url });
      dead.on("error", () => {});
      await dead.connect();
      await dead.query(`select pg_sleep(5) as ${marker}`);
    });
    expect((pgError as { code?: string }).code).toBe("57P01");
    expect(isDatabaseUnavailable(pgError)).toBe(true);
    const reused = await errorOf(() => (dead as pg.Client).query("select 1"));
    expect(isDatabaseUnavailable(reused)).toBe(true);
    await dead?.end().catch(() => {});

    const prismaError = await terminatedMidQuery((marker) =>
      withPrisma(db.url, (prisma) => prisma.$queryRawUnsafe(`select pg_sleep(5) as ${marker}`)),
    );
    expect(JSON.stringify((prismaError as { meta?: unknown }).meta)).toContain("57P01");
    expect(isDatabaseUnavailable(prismaError)).toBe(true);
  });

  it("too many connections (53300), through node-postgres and Prisma", async () => {
    const pgError = await withClient(limitedRoleUrl(), (client) => errorOf(() => client.connect()));
    expect((pgError as { code?: string }).code).toBe("53300");
    expect(isDatabaseUnavailable(pgError)).toBe(true);
    const prismaError = await withPrisma(limitedRoleUrl(), (prisma) => errorOf(() => prisma.user.count()));
    expect(isDatabaseUnavailable(prismaError)).toBe(true);
  });
});

describe("a database that refuses sessions, and a server that refuses writes (issue 39 §6)", () => {
  it("ALLOW_CONNECTIONS false (55000, 'not currently accepting connections'), through node-postgres and Prisma", async () => {
    const name = `receipt_closed_${randomBytes(4).toString("hex")}`;
    await admin.query(`create database "${name}"`);
    await admin.query(`alter database "${name}" allow_connections false`);
    try {
      const url = databaseUrl(db.url, name);
      const pgError = await withClient(url, (client) => errorOf(() => client.connect()));
      expect((pgError as { code?: string }).code).toBe("55000");
      expect(isDatabaseUnavailable(pgError)).toBe(true);
      const prismaError = await withPrisma(url, (prisma) => errorOf(() => prisma.$queryRaw`select 1`));
      expect(isDatabaseUnavailable(prismaError)).toBe(true);
    } finally {
      await admin.query(`drop database if exists "${name}"`);
    }
  });

  it("a write on a read-only server, as after a failover (25006), through node-postgres and Prisma", async () => {
    const readOnly = (url: string) => {
      const next = new URL(url);
      next.searchParams.set("options", "-c default_transaction_read_only=on");
      return next.toString();
    };
    const pgError = await withClient(readOnly(db.url), async (client) => {
      await client.connect();
      return errorOf(() => client.query("create table refused_write (id int)"));
    });
    expect((pgError as { code?: string }).code).toBe("25006");
    expect(isDatabaseUnavailable(pgError)).toBe(true);
    const prismaError = await withPrisma(readOnly(db.url), (prisma) =>
      errorOf(() => prisma.user.create({ data: { username: "refused", passwordHash: "x", role: "viewer" } })),
    );
    expect(isDatabaseUnavailable(prismaError)).toBe(true);
  });
});

describe("errors that are not about availability stay internal errors", () => {
  it("a constraint violation, bad SQL, a missing database and a wrong password", async () => {
    const duplicate = await withPrisma(db.url, async (prisma) => {
      await prisma.user.create({ data: { username: "twice", passwordHash: "x", role: "admin" } });
      return errorOf(() =>
        prisma.user.create({ data: { username: "twice", passwordHash: "x", role: "admin" } }),
      );
    });
    expect((duplicate as { code?: string }).code).toBe("P2002");
    expect(isDatabaseUnavailable(duplicate)).toBe(false);

    const badSql = await withClient(db.url, async (client) => {
      await client.connect();
      return errorOf(() => client.query("select * from no_such_table"));
    });
    expect((badSql as { code?: string }).code).toBe("42P01");
    expect(isDatabaseUnavailable(badSql)).toBe(false);
    const badRawSql = await withPrisma(db.url, (prisma) => errorOf(() => prisma.$queryRaw`select 1/0`));
    expect(isDatabaseUnavailable(badRawSql)).toBe(false);

    const missing = databaseUrl(db.url, `receipt_missing_${randomBytes(4).toString("hex")}`);
    const noDatabase = await withClient(missing, (client) => errorOf(() => client.connect()));
    expect((noDatabase as { code?: string }).code).toBe("3D000");
    expect(isDatabaseUnavailable(noDatabase)).toBe(false);

    const wrongPassword = new URL(limitedRoleUrl());
    wrongPassword.password = "wrong";
    const denied = await withClient(wrongPassword.toString(), (client) => errorOf(() => client.connect()));
    expect((denied as { code?: string }).code).toBe("28P01");
    expect(isDatabaseUnavailable(denied)).toBe(false);

    expect(isDatabaseUnavailable(new Error("boom"))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
