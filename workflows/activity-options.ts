/**
 * Every activity heartbeats while it runs (activities/heartbeat.ts). With this heartbeat timeout an
 * activity whose worker died is retried on another worker within seconds; the start-to-close timeouts
 * only bound an activity that hangs on a live worker. Changing timeouts changes no command: replay-safe.
 */
export const HEARTBEAT_TIMEOUT = '5 seconds';
