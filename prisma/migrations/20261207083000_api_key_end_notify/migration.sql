-- A key revoked, rotated (its expires_at set) or deleted is announced to every API process on the channel
-- api_key_ends with its SHA-256, at commit: each process forgets it from its authentication cache at once
-- (src/http/auth.ts; docs/api.md, "API keys"). The stamp of last_used_at, written on every cache miss,
-- announces nothing.
CREATE FUNCTION announce_api_key_end() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_key_ends', OLD.key_hash);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_end_announced
  AFTER UPDATE OF expires_at, role, key_hash ON api_keys
  FOR EACH ROW
  WHEN (OLD.expires_at IS DISTINCT FROM NEW.expires_at OR OLD.role IS DISTINCT FROM NEW.role
        OR OLD.key_hash IS DISTINCT FROM NEW.key_hash)
  EXECUTE FUNCTION announce_api_key_end();

CREATE TRIGGER api_keys_delete_announced
  AFTER DELETE ON api_keys
  FOR EACH ROW
  EXECUTE FUNCTION announce_api_key_end();
