-- A destination check that asserts the outcome records it beside the effect: the verdict (pass or fail), how it was
-- read (http_status or db_row) and a short receipt. Null for an operator's reconciliation, which records the effect only.
ALTER TABLE "operator_effects" ADD COLUMN "outcome_verdict" TEXT,
    ADD COLUMN "outcome_verifier" TEXT,
    ADD COLUMN "outcome_receipt" TEXT;
