-- CreateTable
CREATE TABLE "usage_hours" (
    "account_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "event_name" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "event_count" BIGINT NOT NULL,
    "value_sum" DECIMAL,
    "value_max" DECIMAL,
    "last_timestamp" TIMESTAMPTZ(3) NOT NULL,
    "last_received_at" TIMESTAMPTZ(3) NOT NULL,
    "last_id" TEXT NOT NULL,
    "last_value" DECIMAL,

    CONSTRAINT "usage_hours_pkey" PRIMARY KEY ("account_id","customer_id","event_name","hour")
);


-- The hours of the events written before this table (docs/decisions.md, "Usage totals"): values as the
-- event name's meter reads them, the latest event of each hour as the `last` aggregation orders them.
INSERT INTO "usage_hours" ("account_id", "customer_id", "event_name", "hour", "event_count", "value_sum", "value_max",
  "last_timestamp", "last_received_at", "last_id", "last_value")
SELECT v.account_id, v.customer_id, v.event_name, date_trunc('hour', v.timestamp, 'UTC'), count(*), sum(v.value), max(v.value),
  (array_agg(v.timestamp ORDER BY v.timestamp DESC, v.received_at DESC, v.id DESC))[1],
  (array_agg(v.received_at ORDER BY v.timestamp DESC, v.received_at DESC, v.id DESC))[1],
  (array_agg(v.id ORDER BY v.timestamp DESC, v.received_at DESC, v.id DESC))[1],
  (array_agg(v.value ORDER BY v.timestamp DESC, v.received_at DESC, v.id DESC))[1]
FROM (
  SELECT e.*, CASE WHEN m.aggregation IN ('sum', 'max', 'last') AND (e.properties->>m.value_property) ~ '^-?[0-9]{1,15}$'
    THEN (e.properties->>m.value_property)::numeric END AS value
  FROM "usage_events" e LEFT JOIN "meters" m ON m.account_id = e.account_id AND m.event_name = e.event_name
) v
GROUP BY v.account_id, v.customer_id, v.event_name, date_trunc('hour', v.timestamp, 'UTC');
