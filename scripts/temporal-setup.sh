#!/bin/sh
# The Temporal `server` engine's steps, one command each, every one idempotent. Run by
# `TEMPORAL_ENGINE=server npm start` and the tests (src/runtime/temporal-server.ts) and by docker-compose.yml
# (the `temporal-*` services), so both run the same steps in the same way.
#
#   temporal-setup.sh schema     create the two databases if missing, then setup-schema / update-schema
#                                (a second run changes nothing; a newer server version applies its new versions)
#   temporal-setup.sh serve      run the Temporal server (exec; configuration deploy/temporal/config/production.yaml)
#   temporal-setup.sh health     exit 0 when the frontend answers SERVING (docker healthcheck)
#   temporal-setup.sh register   wait for the frontend, create the namespace and the search attributes if missing,
#                                and wait until the search attributes can be queried
#   temporal-setup.sh ui         run the Temporal Web UI server (exec; deploy/temporal/ui/production.yaml)
#
# Environment (defaults in brackets):
#   TEMPORAL_DB_HOST [127.0.0.1]  TEMPORAL_DB_PORT [5432]  TEMPORAL_DB_USER [temporal]  TEMPORAL_DB_PASSWORD (required)
#   TEMPORAL_DB_NAME [temporal]  TEMPORAL_VISIBILITY_DB_NAME [temporal_visibility]
#   TEMPORAL_ADDRESS [127.0.0.1:7233] (frontend, for health/register/ui)  TEMPORAL_NAMESPACE [default]
#   TEMPORAL_NAMESPACE_RETENTION [720h: 30 days, docs/decisions.md §24]  TEMPORAL_WAIT_SECONDS [120]
#   Programs: TEMPORAL_SERVER_BIN [temporal-server]  TEMPORAL_SQL_TOOL [temporal-sql-tool]  TEMPORAL_CLI [temporal]
#   TEMPORAL_UI_SERVER_BIN [temporal-ui-server]  TEMPORAL_SCHEMA_DIR [/etc/temporal/schema/postgresql/v12]
#   TEMPORAL_DEPLOY_DIR [deploy/temporal beside this script]
#   serve: TEMPORAL_BIND_IP [127.0.0.1], TEMPORAL_BROADCAST_ADDRESS [the bind IP; the host's address when 0.0.0.0],
#   TEMPORAL_PORT [7233] and the other ports of deploy/temporal/config/production.yaml
set -eu

here=$(cd "$(dirname "$0")" && pwd)
deploy=${TEMPORAL_DEPLOY_DIR:-$here/../deploy/temporal}
address=${TEMPORAL_ADDRESS:-127.0.0.1:7233}
namespace=${TEMPORAL_NAMESPACE:-default}
wait_seconds=${TEMPORAL_WAIT_SECONDS:-120}
cli=${TEMPORAL_CLI:-temporal}

say() { echo "[temporal-setup] $*"; }
fail() { echo "[temporal-setup] error: $*" >&2; exit 1; }

sql_tool() {
  : "${TEMPORAL_DB_PASSWORD:?TEMPORAL_DB_PASSWORD must be set}"
  db=$1
  shift
  "${TEMPORAL_SQL_TOOL:-temporal-sql-tool}" --plugin postgres12 \
    --ep "${TEMPORAL_DB_HOST:-127.0.0.1}" -p "${TEMPORAL_DB_PORT:-5432}" \
    -u "${TEMPORAL_DB_USER:-temporal}" --pw "$TEMPORAL_DB_PASSWORD" --db "$db" "$@"
}

schema() {
  schema_dir=${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}
  [ -d "$schema_dir/temporal/versioned" ] || fail "no Temporal schema at $schema_dir (TEMPORAL_SCHEMA_DIR)"
  for pair in "${TEMPORAL_DB_NAME:-temporal}:temporal" "${TEMPORAL_VISIBILITY_DB_NAME:-temporal_visibility}:visibility"; do
    db=${pair%%:*}
    kind=${pair#*:}
    # create-database leaves an existing database alone (and fails on any other error).
    sql_tool "$db" create-database
    # -v 0.0 only creates the version tables; it leaves a database at a later version alone.
    sql_tool "$db" setup-schema -v 0.0
    # Applies the versions newer than the database's, none on a second run.
    sql_tool "$db" update-schema -d "$schema_dir/$kind/versioned"
    say "schema of $db ($kind) is up to date"
  done
}

health() {
  "$cli" operator cluster health --address "$address" 2>/dev/null | grep -q SERVING
}

wait_for_frontend() {
  waited=0
  until health; do
    [ "$waited" -lt "$wait_seconds" ] || fail "Temporal at $address did not answer SERVING within ${wait_seconds}s"
    sleep 1
    waited=$((waited + 1))
  done
}

# Retries a command for up to TEMPORAL_WAIT_SECONDS (a namespace just created reaches every frontend cache
# within seconds); the last failure is printed and fails the step.
retry() {
  what=$1
  shift
  waited=0
  until out=$("$@" 2>&1); do
    if [ "$waited" -ge "$wait_seconds" ]; then
      echo "$out" >&2
      fail "$what: still failing after ${wait_seconds}s"
    fi
    sleep 1
    waited=$((waited + 1))
  done
}

register() {
  wait_for_frontend
  if "$cli" operator namespace describe --address "$address" --namespace "$namespace" >/dev/null 2>&1; then
    say "namespace $namespace exists"
  else
    "$cli" operator namespace create --address "$address" --namespace "$namespace" \
      --retention "${TEMPORAL_NAMESPACE_RETENTION:-720h}" >/dev/null
    say "namespace $namespace created"
  fi
  existing=$("$cli" operator search-attribute list --address "$address" --namespace "$namespace" 2>/dev/null || true)
  grep -v '^#' "$deploy/search-attributes" | while read -r name type; do
    [ -n "$name" ] || continue
    if echo "$existing" | grep -qw "$name"; then
      say "search attribute $name exists"
    else
      retry "creating search attribute $name" "$cli" operator search-attribute create --address "$address" \
        --namespace "$namespace" --name "$name" --type "$type"
      say "search attribute $name created"
    fi
    # Usable once a visibility query on it is accepted.
    retry "querying search attribute $name" "$cli" workflow list --address "$address" --namespace "$namespace" \
      --query "$name = 'probe'" --limit 1
  done
  say "namespace $namespace ready"
}

serve() {
  : "${TEMPORAL_DB_PASSWORD:?TEMPORAL_DB_PASSWORD must be set}"
  export TEMPORAL_DYNAMIC_CONFIG="${TEMPORAL_DYNAMIC_CONFIG:-$deploy/dynamicconfig/production.yaml}"
  # Bound to every interface (a container): the other services reach this one at its own address.
  if [ -z "${TEMPORAL_BROADCAST_ADDRESS:-}" ] && [ "${TEMPORAL_BIND_IP:-127.0.0.1}" = 0.0.0.0 ]; then
    TEMPORAL_BROADCAST_ADDRESS=$(hostname -i | awk '{print $1}')
    export TEMPORAL_BROADCAST_ADDRESS
  fi
  exec "${TEMPORAL_SERVER_BIN:-temporal-server}" --root "$deploy" --config config --env production start
}

ui() {
  export TEMPORAL_ADDRESS="$address"
  exec "${TEMPORAL_UI_SERVER_BIN:-temporal-ui-server}" --root "$deploy/ui" --config . --env production start
}

case "${1:-}" in
  schema) schema ;;
  serve) serve ;;
  health) health ;;
  register) register ;;
  ui) ui ;;
  *) fail "usage: temporal-setup.sh schema|serve|health|register|ui" ;;
esac
