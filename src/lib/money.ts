/** The most any invoice, plan or single charge may be: the spec's price ceiling, 99999999 cents. */
export const MAX_CHARGE_AMOUNT = 99_999_999;
