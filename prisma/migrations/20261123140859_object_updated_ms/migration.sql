-- AlterTable
ALTER TABLE "products" ADD COLUMN     "updated_ms" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "prices" ADD COLUMN     "updated_ms" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "tax_rates" ADD COLUMN     "updated_ms" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "updated_ms" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "updated_ms" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "payment_plans" ADD COLUMN     "updated_ms" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "payment_methods" ADD COLUMN     "updated_ms" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "subscriptions" ADD COLUMN     "updated_ms" BIGINT NOT NULL DEFAULT 0;


-- `updated_ms` lets webhook receivers order the versions of one object (README.md, "Ordering events"):
-- every insert and update sets it to the current time in milliseconds, or one more than it was when
-- that is not larger, so it strictly increases with every change even within one millisecond.
CREATE FUNCTION bump_updated_ms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    NEW.updated_ms := GREATEST((EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT, OLD.updated_ms + 1);
  ELSE
    NEW.updated_ms := (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT;
  END IF;
  RETURN NEW;
END
$$;

DO $$
DECLARE
  table_name TEXT;
BEGIN
  FOREACH table_name IN ARRAY ARRAY['products', 'prices', 'tax_rates', 'customers', 'invoices', 'payment_plans', 'payment_methods', 'subscriptions'] LOOP
    EXECUTE format('UPDATE %I SET updated_ms = (EXTRACT(EPOCH FROM COALESCE(updated_at, created_at)) * 1000)::BIGINT', table_name);
    EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION bump_updated_ms()', table_name || '_updated_ms', table_name);
  END LOOP;
END
$$;
