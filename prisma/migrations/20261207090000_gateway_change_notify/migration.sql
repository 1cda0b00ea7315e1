-- A change of an account's processor (payment_processor, gateway_kind) or of its connection (gateway_settings) is
-- announced to every API and worker process on the channel account_gateway_changes with the account's id, at
-- commit: each forgets what it kept of the account, so its next charge goes through the processor just connected
-- (src/use-cases/gateway-changes.ts; docs/decisions.md §48).
CREATE FUNCTION announce_gateway_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'accounts' THEN
    PERFORM pg_notify('account_gateway_changes', NEW.id);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('account_gateway_changes', OLD.account_id);
  ELSE
    PERFORM pg_notify('account_gateway_changes', NEW.account_id);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER accounts_gateway_change_announced
  AFTER UPDATE OF payment_processor, gateway_kind ON accounts
  FOR EACH ROW
  WHEN (OLD.payment_processor IS DISTINCT FROM NEW.payment_processor OR OLD.gateway_kind IS DISTINCT FROM NEW.gateway_kind)
  EXECUTE FUNCTION announce_gateway_change();

CREATE TRIGGER gateway_settings_change_announced
  AFTER INSERT OR UPDATE OR DELETE ON gateway_settings
  FOR EACH ROW
  EXECUTE FUNCTION announce_gateway_change();
