-- CreateTable
CREATE TABLE "set_aside_items" (
    "job" TEXT NOT NULL,
    "item_key" TEXT NOT NULL,
    "item_version" TEXT,
    "reason" TEXT NOT NULL,
    "set_aside_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "set_aside_items_pkey" PRIMARY KEY ("job","item_key")
);
