import { useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Coupon, type Page } from '../api';
import { couponTerms } from './Catalog';
import { FormDialog, paramError, type Outcome } from './common';

/**
 * "Apply coupon": one of the account's coupons redeemed on a customer or a subscription (PATCH with `coupon`,
 * docs/api.md "Coupons and discounts"); its discount replaces the one it had. The API's refusal of the coupon
 * (expired, used up, another currency) is shown beside the picker. A double click redeems once (FormDialog).
 */
export function ApplyCoupon<T extends { id: string; customer?: string }>({
  path,
  queryKey,
  customerId,
  onApplied,
}: {
  /** The customer's or the subscription's path: `/customers/cus_...`. */
  path: string;
  /** Where the page keeps the object: set to the PATCH's answer. */
  queryKey: unknown[];
  customerId: string;
  onApplied: (outcome: Outcome) => void;
}) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [coupon, setCoupon] = useState('');
  const errorId = useId();
  const labelId = useId();
  const coupons = useQuery({
    queryKey: ['coupons'],
    queryFn: () => api<Page<Coupon>>('GET', '/coupons?take=100'),
    enabled: open,
  });
  const apply = useMutation({
    mutationFn: () => api<T>('PATCH', path, { coupon }),
    onSuccess: (updated) => {
      queryClient.setQueryData(queryKey, updated);
      // Its redemption counts on the coupon, and the customer's upcoming bills change.
      void queryClient.invalidateQueries({ queryKey: ['coupons'] });
      void queryClient.invalidateQueries({ queryKey: ['customer', customerId] });
      void queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
      void queryClient.invalidateQueries({ queryKey: ['events'] });
      const chosen = coupons.data?.data.find((candidate) => candidate.id === coupon);
      const name = chosen ? `${chosen.name ?? chosen.id} (${couponTerms(chosen)})` : coupon;
      onApplied({ tone: 'success', text: `Coupon ${name} applied: the next invoices take it off.` });
      setOpen(false);
    },
  });
  const refusal = paramError(apply.error, 'coupon');
  return (
    <>
      <button type="button" className="secondary" onClick={() => (apply.reset(), setCoupon(''), setOpen(true))}>
        Apply coupon
      </button>
      {open && (
        <FormDialog
          title="Apply a coupon"
          submit="Apply coupon"
          busy={apply.isPending}
          error={apply.error ?? coupons.error}
          fieldParams={['coupon']}
          onSubmit={() => apply.mutate()}
          onClose={() => setOpen(false)}
        >
          <label className="field">
            <span id={labelId}>Coupon</span>
            <select
              aria-labelledby={labelId}
              value={coupon}
              onChange={(event) => setCoupon(event.target.value)}
              required
              aria-invalid={refusal ? true : undefined}
              aria-describedby={refusal ? errorId : undefined}
            >
              <option value="">{coupons.isPending ? 'Loading coupons…' : 'Choose a coupon'}</option>
              {coupons.data?.data
                .filter((candidate) => candidate.valid)
                .map((candidate) => (
                  <option key={candidate.id} value={candidate.id}>
                    {candidate.name ?? candidate.id}: {couponTerms(candidate)}
                  </option>
                ))}
            </select>
            {refusal && (
              <span className="error" id={errorId} role="alert">
                {refusal}
              </span>
            )}
          </label>
          <p className="muted small">
            It replaces the discount in place, and applies from the next invoice of a period; one-off invoices take no
            discount.
          </p>
        </FormDialog>
      )}
    </>
  );
}
