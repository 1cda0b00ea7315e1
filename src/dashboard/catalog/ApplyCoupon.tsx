import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { Dialog } from '../components/dialogs';
import type { Outcome } from '../components/feedback';
import { SelectField } from '../components/form';
import { couponTerms } from './terms';

/** The account's coupons (GET /coupons), as the catalog lists them and the coupon picker offers them. */
export const COUPONS = ['coupons'];
export const readCoupons = () => api.GET('/coupons', { params: { query: { take: 100 } } });

/**
 * "Apply coupon": one of the account's coupons redeemed on a customer or a subscription (PATCH with `coupon`,
 * docs/api.md "Coupons and discounts"); its discount replaces the one it had. The API's refusal of the coupon
 * (expired, used up, another currency) is shown beside the picker. A double click redeems once (Dialog).
 */
export function ApplyCoupon<Answer>({
  apply,
  queryKey,
  merge = (_shown, updated) => updated,
  customerId,
  onApplied,
}: {
  /** The customer's or the subscription's PATCH with `coupon`. */
  apply: (coupon: string) => Promise<Answer>;
  /** Where the page keeps the object: set to the PATCH's answer (merged with what is shown, by `merge`). */
  queryKey: unknown[];
  merge?: (shown: Answer | undefined, updated: Answer) => Answer;
  customerId: string;
  onApplied: (outcome: Outcome) => void;
}) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [coupon, setCoupon] = useState('');
  const coupons = useQuery({ queryKey: COUPONS, queryFn: readCoupons, enabled: open });
  const redeem = useMutation({
    mutationFn: () => apply(coupon),
    onSuccess: (updated) => {
      queryClient.setQueryData<Answer>(queryKey, (shown) => merge(shown, updated));
      // Its redemption counts on the coupon, and the customer's upcoming bills change.
      void queryClient.invalidateQueries({ queryKey: COUPONS });
      void queryClient.invalidateQueries({ queryKey: ['customer', customerId] });
      void queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
      void queryClient.invalidateQueries({ queryKey: ['events'] });
      const chosen = coupons.data?.data.find((candidate) => candidate.id === coupon);
      const name = chosen ? `${chosen.name ?? chosen.id} (${couponTerms(chosen)})` : coupon;
      onApplied({ tone: 'success', text: `Coupon ${name} applied: the next invoices take it off.` });
      setOpen(false);
    },
  });
  return (
    <>
      <button type="button" className="secondary" onClick={() => (redeem.reset(), setCoupon(''), setOpen(true))}>
        Apply coupon
      </button>
      {open && (
        <Dialog
          title="Apply a coupon"
          submit="Apply coupon"
          action={{ isPending: redeem.isPending, error: redeem.error ?? coupons.error }}
          onSubmit={() => redeem.mutate()}
          onClose={() => setOpen(false)}
        >
          <SelectField label="Coupon" param="coupon" value={coupon} onValue={setCoupon} required>
            <option value="">{coupons.isPending ? 'Loading coupons…' : 'Choose a coupon'}</option>
            {coupons.data?.data
              .filter((candidate) => candidate.valid)
              .map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.name ?? candidate.id}: {couponTerms(candidate)}
                </option>
              ))}
          </SelectField>
          <p className="muted small">
            It replaces the discount in place, and applies from the next invoice of a period; one-off invoices take no
            discount.
          </p>
        </Dialog>
      )}
    </>
  );
}
