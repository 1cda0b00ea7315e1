import type { Db } from '../db/prisma';
import { notFound } from '../http/errors';
import type { Address } from '../customers';
import { readAccountSeller, writeBusinessDetails, type AccountSeller } from './account.records';
import type { BusinessDetailsInput, BusinessDetailsObject } from './business-details.schemas';

function toBusinessDetailsObject(seller: AccountSeller): BusinessDetailsObject {
  return {
    object: 'business_details',
    legal_name: seller.legalName,
    address: (seller.businessAddress as Address | null) ?? null,
    support_email: seller.supportEmail,
    support_phone: seller.supportPhone,
    tax_id: seller.taxId,
  };
}

/** GET /settings/business-details: every field null until set. */
export async function getBusinessDetails(prisma: Db, accountId: string): Promise<BusinessDetailsObject> {
  const seller = await readAccountSeller(prisma, accountId);
  if (!seller) throw notFound('account', accountId, 'account');
  return toBusinessDetailsObject(seller);
}

/** An address with its empty parts left out; null when nothing is left. */
function addressOf(address: BusinessDetailsInput['address']): object | null | undefined {
  if (!address) return address;
  const parts = Object.entries(address).filter(([, value]) => value !== undefined && value !== '');
  return parts.length > 0 ? Object.fromEntries(parts) : null;
}

/**
 * PUT /settings/business-details: what `input` gives changes (null clears it), the rest stays. Invoices take
 * them when made and again when finalized, and keep them from then on: an issued invoice never changes.
 */
export async function putBusinessDetails(
  prisma: Db,
  accountId: string,
  input: BusinessDetailsInput,
): Promise<BusinessDetailsObject> {
  await writeBusinessDetails(prisma, accountId, {
    legalName: input.legal_name,
    businessAddress: addressOf(input.address),
    supportEmail: input.support_email,
    supportPhone: input.support_phone,
    taxId: input.tax_id,
  });
  return getBusinessDetails(prisma, accountId);
}
