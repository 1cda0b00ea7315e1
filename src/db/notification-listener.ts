import pg from 'pg';
import type { Logger } from '../http/logger';

export interface NotificationListener {
  /** Opens the connection and LISTENs; resolves once the first attempt has succeeded or failed (it retries alone). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A LISTEN on a connection of its own (a pooled one would hand its session to other work). A lost connection
 * is opened again a second later. Notifications sent while nobody listened are gone (NOTIFY keeps none for later):
 * `onListening` runs after each LISTEN, the first too, `onGap` after each one but the first.
 */
export function notificationListener(options: {
  databaseUrl: string;
  /** What listens, for the log ("webhook relay"). */
  name: string;
  log: Logger;
  listen: (client: pg.Client) => Promise<void>;
  onNotification: (payload: string | undefined) => void;
  onListening?: () => void;
  onGap?: () => void;
}): NotificationListener {
  const { name, log } = options;
  let listener: pg.Client | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let stopped = false;
  let listenedBefore = false;
  async function listen(): Promise<void> {
    if (stopped) return;
    const client = new pg.Client({ connectionString: options.databaseUrl });
    listener = client;
    const reconnect = () => {
      if (stopped || listener !== client || reconnectTimer) return;
      listener = null;
      client.end().catch(() => undefined);
      reconnectTimer = setTimeout(() => {
        reconnectTimer = null;
        void listen();
      }, 1000);
    };
    client.on('notification', (message) => options.onNotification(message.payload));
    client.on('error', (error) => {
      log.warn({ err: error }, `${name} listener lost; reconnecting`);
      reconnect();
    });
    client.on('end', reconnect);
    try {
      await client.connect();
      await options.listen(client);
      options.onListening?.();
      if (listenedBefore) options.onGap?.();
      listenedBefore = true;
    } catch (error) {
      log.warn({ err: error }, `${name} cannot listen; trying again`);
      reconnect();
    }
  }
  async function close(): Promise<void> {
    stopped = true;
    if (reconnectTimer) clearTimeout(reconnectTimer);
    const client = listener;
    listener = null;
    await client?.end().catch(() => undefined);
  }
  return { start: listen, close };
}
