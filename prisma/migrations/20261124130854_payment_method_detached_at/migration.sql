-- AlterTable
ALTER TABLE "payment_methods" ADD COLUMN     "detached_at" TIMESTAMPTZ(3);


-- Methods detached before this column existed (their payment_method.detached event says so) are
-- unusable too (decisions.md §5): a method detached and attached again since has a customer and stays usable.
UPDATE "payment_methods" m SET "detached_at" = e."created_at"
FROM (SELECT "data"->>'id' AS id, max("created_at") AS created_at FROM "events" WHERE "type" = 'payment_method.detached' GROUP BY 1) e
WHERE m."id" = e.id AND m."customer_id" IS NULL;
