import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeDatabase, embeddedDataDir } from "@/lib/server/db/connection-string";

// The one place every entry point (npm start, the CLIs, the scripts) takes its database from.
const saved = { ...process.env };
afterEach(() => {
  for (const name of ["DATABASE_URL", "RECEIPT_DATA_DIR", "INIT_CWD"]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});
const root = path.resolve(import.meta.dirname, "../..");

describe("embeddedDataDir", () => {
  it("is .data/pg in the project without RECEIPT_DATA_DIR (or with it empty)", () => {
    delete process.env.RECEIPT_DATA_DIR;
    expect(embeddedDataDir()).toBe(path.join(root, ".data", "pg"));
    process.env.RECEIPT_DATA_DIR = "";
    expect(embeddedDataDir()).toBe(path.join(root, ".data", "pg"));
  });

  it("is RECEIPT_DATA_DIR/pg; a relative one from where npm was called (INIT_CWD), else the working directory", () => {
    process.env.RECEIPT_DATA_DIR = "/var/lib/receipt";
    expect(embeddedDataDir()).toBe("/var/lib/receipt/pg");
    process.env.RECEIPT_DATA_DIR = "data";
    process.env.INIT_CWD = "/srv/ops";
    expect(embeddedDataDir()).toBe("/srv/ops/data/pg");
    delete process.env.INIT_CWD;
    expect(embeddedDataDir()).toBe(path.join(process.cwd(), "data", "pg"));
  });
});

describe("describeDatabase", () => {
  it("names the embedded folder, or DATABASE_URL without its password", () => {
    delete process.env.DATABASE_URL;
    process.env.RECEIPT_DATA_DIR = "/x";
    expect(describeDatabase()).toBe("the embedded database in /x/pg");
    process.env.DATABASE_URL = "postgresql://app:s3cret@db.internal:5432/receipt?sslmode=require";
    expect(describeDatabase()).toBe(
      "the database at DATABASE_URL (postgresql://app@db.internal:5432/receipt?sslmode=require)",
    );
    process.env.DATABASE_URL = "postgresql://db.internal/receipt?user=app&password=s3cret";
    expect(describeDatabase()).toBe(
      "the database at DATABASE_URL (postgresql://db.internal/receipt?user=app)",
    );
    process.env.DATABASE_URL = "postgresql://[not a host";
    expect(describeDatabase()).toBe("the database at DATABASE_URL");
  });
});
