import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { Prisma } from "@/lib/generated/prisma/client";
import { getPool } from "./client";

/**
 * The transaction a chain-state write runs in. Ingestion opens it straight on the `pg` pool Prisma's adapter
 * uses: Prisma's raw-query path serialises every parameter to JSON and parses it back, and builds its `findMany`
 * arguments element by element, which cost ingestion a third of its time on batches of large JSON rows
 * (docs/BENCHMARKS.md). Writers that also touch Prisma models (reconciliation, triage) pass
 * their Prisma transaction through `prismaSql`, so the same statements run in either.
 */
export type Sql = {
  /** Rows of a statement; int8 columns come back as bigint, as Prisma's raw queries return them. */
  query<Row = Record<string, unknown>>(statement: Statement, values?: readonly unknown[]): Promise<Row[]>;
  /** Rows affected. */
  execute(statement: Statement, values?: readonly unknown[]): Promise<number>;
};

/** SQL text, or a statement made with `prepared`. */
export type Statement = string | PreparedStatement;
type PreparedStatement = { name: string; text: string };

/**
 * A statement each pooled connection parses and plans once, then only binds and runs: for statements whose plan
 * cannot depend on their parameters — an INSERT from a JSON document of rows, the chain locks, a unique-key lookup.
 * Never for a read whose best plan depends on the data: a generic plan made while `chains` was nearly empty kept a
 * sequential scan once it had grown (docs/BENCHMARKS.md). Prisma's transactions (`prismaSql`) run the text unprepared.
 */
export function prepared(name: string, text: string): PreparedStatement {
  return { name, text };
}

const textOf = (statement: Statement) => (typeof statement === "string" ? statement : statement.text);

export function prismaSql(tx: Prisma.TransactionClient): Sql {
  return {
    query: (statement, values = []) => tx.$queryRawUnsafe(textOf(statement), ...values),
    execute: (statement, values = []) => tx.$executeRawUnsafe(textOf(statement), ...values),
  };
}

const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8
      ? (value: string) => BigInt(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Statements on one connection of the caller's (a pooled one, or a client a script opened itself). */
export function sqlOver(target: pg.Pool | pg.ClientBase): Sql {
  const config = (statement: Statement, values: readonly unknown[]) => ({
    ...(typeof statement === "string" ? { text: statement } : statement),
    values: [...values],
    types,
  });
  return {
    query: async <Row>(statement: Statement, values: readonly unknown[] = []) =>
      (await target.query(config(statement, values))).rows as Row[],
    execute: async (statement, values = []) => (await target.query(config(statement, values))).rowCount ?? 0,
  };
}

/** Runs `work` in a transaction on a connection already chosen: begin, the work, commit or rollback. */
export type TransactionOn = <T>(work: (tx: Sql) => Promise<T>) => Promise<T>;

/** `inTransaction` on one client of the caller's (scripts, migrations, tests): begin, the work, commit or rollback. */
export function transactionOver(client: pg.ClientBase): TransactionOn {
  const sql = sqlOver(client);
  return async <T>(work: (tx: Sql) => Promise<T>): Promise<T> => {
    await client.query("begin");
    try {
      const result = await work(sql);
      await client.query("commit");
      return result;
    } catch (error) {
      await client.query("rollback");
      throw error;
    }
  };
}

/** Statements outside a transaction, each on whichever pooled connection is free. */
export function poolSql(): Sql {
  return sqlOver(getPool());
}

/**
 * `work` on one pooled connection: its statements one after another, outside a transaction or in `transaction`s. For
 * a statement whose refusal is followed by more work on the same rows: pg reports the error as it arrives, before
 * PostgreSQL has rolled the statement back and released its row locks, so a statement on another connection could
 * still find those rows locked. On this one the next statement runs after the rollback, and an error leaves only
 * after a probe on it, so the caller's next statement, wherever it runs, finds the rows free.
 */
export async function onOneConnection<T>(
  work: (sql: Sql, transaction: TransactionOn) => Promise<T>,
): Promise<T> {
  const client = await getPool().connect();
  let broken: Error | undefined;
  try {
    return await work(sqlOver(client), transactionOver(client));
  } catch (error) {
    // Also tells a connection that no longer answers, which must not go back to the pool.
    await client.query("select 1").catch((probe: Error) => {
      broken = probe;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/** A transaction on a `pg` connection, which can also bulk-load with COPY (Prisma's transactions cannot). */
export type TransactionSql = Sql & {
  /** Streams `text` (COPY's text format: a line a row) into `copy … from stdin`; returns the rows loaded. */
  copyIn(copyStatement: string, text: string): Promise<number>;
  /** Runs `effect` (which must not throw) once the transaction has committed, never after a rollback. */
  afterCommit(effect: () => void): void;
};

/** Runs `work` in one transaction on a pooled connection: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(work: (sql: TransactionSql) => Promise<T>): Promise<T> {
  const client = await getPool().connect();
  let broken: Error | undefined;
  const committed: (() => void)[] = [];
  try {
    await client.query("begin");
    const result = await work({
      ...sqlOver(client),
      copyIn: async (copyStatement, text) => {
        const stream = client.query(copyFrom(copyStatement));
        await pipeline(Readable.from([text]), stream);
        return stream.rowCount;
      },
      afterCommit: (effect) => committed.push(effect),
    });
    await client.query("commit");
    for (const effect of committed) effect();
    return result;
  } catch (error) {
    await client.query("rollback").catch((rollbackError: Error) => {
      broken = rollbackError; // the connection is unusable: the pool must not hand it out again
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
