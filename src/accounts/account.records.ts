import { Prisma, type Account, type ApiKey } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { queryRows, type AnyTx, type Queryable, type Statement } from '../db/sql';

const LOCK_API_KEY: Statement = {
  name: 'api_key_lock',
  text: 'SELECT replaced_by_id AS "replacedById" FROM api_keys WHERE id = $1 FOR UPDATE',
};

/** The key's successor (if rotated before), its row locked until the caller's transaction ends; undefined for an unknown key. */
export async function lockApiKey(tx: AnyTx, keyId: string): Promise<Pick<ApiKey, 'replacedById'> | undefined> {
  const [key] = await queryRows<Pick<ApiKey, 'replacedById'>>(tx, LOCK_API_KEY, [keyId]);
  return key;
}

/** The account's default proration_behavior column (docs/decisions.md §25); undefined for an unknown account. */
export async function readProrationBehavior(db: Db, accountId: string): Promise<string | undefined> {
  const account = await db.account.findUnique({ where: { id: accountId }, select: { prorationBehavior: true } });
  return account?.prorationBehavior;
}

export async function writeProrationBehavior(db: Db, accountId: string, behavior: string): Promise<void> {
  await db.account.update({ where: { id: accountId }, data: { prorationBehavior: behavior } });
}

/** What an account's documents and emails to its customers show and obey. */
export type AccountProfile = Pick<
  Account,
  'id' | 'name' | 'timeZone' | 'emailFrom' | 'emailsOff' | 'brandColor' | 'renewalReminderDays' | 'trialEndReminderDays'
>;

const ACCOUNT_PROFILE: Statement = {
  name: 'account_profile',
  text: `SELECT id, name, time_zone AS "timeZone", email_from AS "emailFrom", coalesce(emails_off, '{}') AS "emailsOff",
    brand_color AS "brandColor", renewal_reminder_days AS "renewalReminderDays", trial_end_reminder_days AS "trialEndReminderDays"
    FROM accounts WHERE id = $1`,
};

export async function readAccountProfile(db: Queryable, accountId: string): Promise<AccountProfile | undefined> {
  const [row] = await queryRows<AccountProfile>(db, ACCOUNT_PROFILE, [accountId]);
  return row;
}

/** What an invoice takes of its seller: the account's name and its public business details (docs/api.md, "Business details"). */
export type AccountSeller = Pick<
  Account,
  'name' | 'legalName' | 'businessAddress' | 'supportEmail' | 'supportPhone' | 'taxId'
>;

const ACCOUNT_SELLER: Statement = {
  name: 'account_seller',
  text: `SELECT name, legal_name AS "legalName", business_address AS "businessAddress", support_email AS "supportEmail",
    support_phone AS "supportPhone", tax_id AS "taxId"
    FROM accounts WHERE id = $1`,
};

/**
 * A scalar subselect answering, as JSON, what readAccountSeller answers of the account whose id is the parameter
 * `accountParam` (`$2`, say): another module's statement reads the seller with what it reads (an invoice's inputs).
 */
export function accountSellerJsonSql(accountParam: string): string {
  return `(SELECT json_build_object('name', a.name, 'legalName', a.legal_name, 'businessAddress', a.business_address,
    'supportEmail', a.support_email, 'supportPhone', a.support_phone, 'taxId', a.tax_id)
    FROM accounts a WHERE a.id = ${accountParam})`;
}

export async function readAccountSeller(db: Queryable, accountId: string): Promise<AccountSeller | undefined> {
  const [row] = await queryRows<AccountSeller>(db, ACCOUNT_SELLER, [accountId]);
  return row;
}

const sellersOfTransactions = new WeakMap<AnyTx, Map<string, Promise<AccountSeller | undefined>>>();

/**
 * readAccountSeller once per transaction and account: an invoice made and finalized in one transaction (a
 * subscription's creation, a period's billing) is issued under one reading of the account's details, with one
 * statement. Nothing writes an account's details inside a billing transaction.
 */
export function readAccountSellerInTx(tx: AnyTx, accountId: string): Promise<AccountSeller | undefined> {
  let sellers = sellersOfTransactions.get(tx);
  if (!sellers) sellersOfTransactions.set(tx, (sellers = new Map()));
  let seller = sellers.get(accountId);
  if (!seller) sellers.set(accountId, (seller = readAccountSeller(tx, accountId)));
  return seller;
}

/** The seller read by another statement of the transaction (accountSellerJsonSql): readAccountSellerInTx answers it. */
export function rememberAccountSellerInTx(tx: AnyTx, accountId: string, seller: AccountSeller | undefined): void {
  let sellers = sellersOfTransactions.get(tx);
  if (!sellers) sellersOfTransactions.set(tx, (sellers = new Map()));
  sellers.set(accountId, Promise.resolve(seller));
}

/** The business details `change` gives (undefined: left as they are, null: cleared). */
export async function writeBusinessDetails(
  db: Db,
  accountId: string,
  change: Partial<Omit<AccountSeller, 'name' | 'businessAddress'>> & { businessAddress?: object | null },
): Promise<void> {
  const { businessAddress, ...rest } = change;
  await db.account.update({
    where: { id: accountId },
    data: {
      ...rest,
      ...(businessAddress === undefined ? {} : { businessAddress: businessAddress ?? Prisma.DbNull }),
    },
  });
}

/** Whether the account exists (read in the caller's transaction). */
export async function accountExists(db: Db | Tx, id: string): Promise<boolean> {
  return (await db.account.findUnique({ where: { id }, select: { id: true } })) !== null;
}

export function readAccount(db: Db | Tx, id: string): Promise<Account | null> {
  return db.account.findUnique({ where: { id } });
}

export function countAccounts(db: Db): Promise<number> {
  return db.account.count();
}

/** An account known to exist (the session's). */
export function readExistingAccount(db: Db, id: string): Promise<Account> {
  return db.account.findUniqueOrThrow({ where: { id } });
}

/** Sets the account's dashboard settings; undefined fields are left as they are. */
export function updateAccountSettingsRow(
  db: Db,
  id: string,
  data: Pick<
    Prisma.AccountUncheckedUpdateInput,
    'name' | 'timeZone' | 'emailFrom' | 'emailsOff' | 'renewalReminderDays' | 'trialEndReminderDays' | 'brandColor'
  >,
): Promise<Account> {
  return db.account.update({ where: { id }, data });
}

export function insertAccountRow(db: Db | Tx, data: Prisma.AccountUncheckedCreateInput): Promise<Account> {
  return db.account.create({ data });
}

export function insertApiKey(db: Db | Tx, data: Prisma.ApiKeyUncheckedCreateInput): Promise<ApiKey> {
  return db.apiKey.create({ data });
}

export function readApiKey(db: Db | Tx, id: string): Promise<ApiKey | null> {
  return db.apiKey.findUnique({ where: { id } });
}

/** The account's keys, newest first. */
export function readAccountApiKeys(db: Db, accountId: string): Promise<ApiKey[]> {
  return db.apiKey.findMany({ where: { accountId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

export async function updateApiKeyRow(
  db: Db | Tx,
  id: string,
  data: Pick<Prisma.ApiKeyUncheckedUpdateInput, 'expiresAt' | 'replacedById'>,
): Promise<void> {
  await db.apiKey.update({ where: { id }, data });
}

/** A key known to exist (just written or locked by the caller). */
export function readExistingApiKey(db: Db | Tx, id: string): Promise<ApiKey> {
  return db.apiKey.findUniqueOrThrow({ where: { id } });
}

/** The account's key, or null (another account's too). */
export function readAccountApiKey(db: Db | Tx, accountId: string, id: string): Promise<ApiKey | null> {
  return db.apiKey.findFirst({ where: { id, accountId } });
}

/** What chooses an account's payment processor (src/payments/gateways.ts). */
export type GatewayAccount = Pick<Account, 'id' | 'gatewayKind' | 'paymentProcessor'>;

const GATEWAY_ACCOUNT: Statement = {
  name: 'account_gateway',
  text: `SELECT id, gateway_kind AS "gatewayKind", payment_processor AS "paymentProcessor" FROM accounts WHERE id = $1`,
};

export async function readGatewayAccount(db: Queryable, accountId: string): Promise<GatewayAccount | undefined> {
  const [row] = await queryRows<GatewayAccount>(db, GATEWAY_ACCOUNT, [accountId]);
  return row;
}

/** Makes `processor`'s adapter serve the account's payments (src/payments/gateways.ts); null: its gateway kind's. */
export async function writePaymentProcessor(db: Db | Tx, accountId: string, processor: string | null): Promise<void> {
  await db.account.update({ where: { id: accountId }, data: { paymentProcessor: processor } });
}
