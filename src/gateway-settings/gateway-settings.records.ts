import type pg from 'pg';
import type { GatewaySettings, Prisma } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';

export function readGatewaySettingsRow(db: Db, accountId: string): Promise<GatewaySettings | null> {
  return db.gatewaySettings.findUnique({ where: { accountId } });
}

/** The settings whose processor-webhook URL ends with `webhookKey`, or null. */
export function readGatewaySettingsByWebhookKey(db: Db, webhookKey: string): Promise<GatewaySettings | null> {
  return db.gatewaySettings.findUnique({ where: { webhookKey } });
}

/** Writes the account's settings; a new row takes `webhookKey`, an existing one keeps its own. */
export function upsertGatewaySettingsRow(
  db: Db | Tx,
  accountId: string,
  data: Omit<Prisma.GatewaySettingsUncheckedCreateInput, 'accountId' | 'webhookKey'>,
  webhookKey: string,
): Promise<GatewaySettings> {
  return db.gatewaySettings.upsert({
    where: { accountId },
    create: { accountId, webhookKey, ...data },
    update: data,
  });
}

/**
 * The channel PostgreSQL announces a change of an account's processor or connection on, with the account's id:
 * triggers on accounts (payment_processor, gateway_kind) and gateway_settings send it at commit (docs/decisions.md §48).
 */
export const GATEWAY_CHANGES_CHANNEL = 'account_gateway_changes';

/** Subscribes `client` to those announcements for as long as its session lasts. */
export async function listenForGatewayChanges(client: pg.Client): Promise<void> {
  await client.query(`LISTEN ${GATEWAY_CHANGES_CHANNEL}`);
}
