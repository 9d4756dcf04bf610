-- CreateTable
CREATE TABLE "server_keys" (
    "name" TEXT NOT NULL,
    "key" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "server_keys_pkey" PRIMARY KEY ("name")
);

-- The throttle no longer keeps a count every client shares ('address:any', 'address:unknown'): drop those rows.
DELETE FROM "sign_in_throttle" WHERE "key" IN ('address:any', 'address:unknown');
