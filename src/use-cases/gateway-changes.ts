import { forgetGatewayAccount } from '../accounts';
import { notificationListener, type NotificationListener } from '../db/notification-listener';
import { forgetProcessorCredentials, listenForGatewayChanges } from '../gateway-settings';
import type { Logger } from '../http/logger';

/**
 * Every API and worker process keeps an account's processor and its decrypted connection 30 s; PostgreSQL
 * announces each change of either at commit, and the process forgets the account's at once, so its next charge
 * goes through the processor just connected (docs/decisions.md §48). After a lost connection it forgets every
 * account's, since announcements sent meanwhile are gone.
 */
export async function hearGatewayChanges(databaseUrl: string, log: Logger): Promise<NotificationListener> {
  const forget = (accountId: string | null) => {
    forgetGatewayAccount(accountId);
    forgetProcessorCredentials(accountId);
  };
  const listener = notificationListener({
    databaseUrl,
    name: 'gateway changes',
    log,
    listen: listenForGatewayChanges,
    onNotification: (accountId) => forget(accountId ?? null),
    onGap: () => forget(null),
  });
  await listener.start();
  return listener;
}
