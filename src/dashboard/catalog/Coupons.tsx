import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../client/schema';
import { api } from '../api/client';
import type { Coupon } from '../api/types';
import { StateBadge } from '../components/badges';
import { Confirm } from '../components/common';
import { Table } from '../components/Table';
import { CopyId } from '../components/CopyId';
import { CatalogForm, ErrorLine, parseCents } from './catalog-forms';
import { couponTerms, CURRENCY } from './terms';

/** The account's coupons: listed, created, deleted (a deleted coupon takes no new redemption; its discounts run on). */
export function Coupons() {
  const queryClient = useQueryClient();
  const coupons = useQuery({
    queryKey: ['coupons'],
    queryFn: () => api.GET('/coupons', { params: { query: { take: 100 } } }),
  });
  const [creating, setCreating] = useState(false);
  const [asking, setAsking] = useState<Coupon>();
  const remove = useMutation({
    mutationFn: (coupon: Coupon) => api.DELETE('/coupons/{id}', { params: { path: { id: coupon.id } } }),
    onSuccess: () => {
      setAsking(undefined);
      void queryClient.invalidateQueries({ queryKey: ['coupons'] });
    },
    onError: () => setAsking(undefined),
  });

  return (
    <>
      <div className="title-row">
        <h2>Coupons</h2>
        {!creating && (
          <button type="button" className="secondary" onClick={() => setCreating(true)}>
            New coupon
          </button>
        )}
      </div>
      {creating && <NewCoupon onDone={() => setCreating(false)} />}
      <ErrorLine error={remove.error} />
      <Table
        query={coupons}
        rows={coupons.data?.data}
        rowKey={(coupon) => coupon.id}
        empty="No coupons yet. A coupon takes a percentage or an amount off a customer's or a subscription's invoices."
        columns={[
          { header: 'Coupon', cell: (coupon) => coupon.name ?? coupon.id },
          { header: 'Discount', cell: couponTerms },
          {
            header: 'Redeemed',
            cell: (coupon) =>
              `${coupon.times_redeemed}${coupon.max_redemptions !== null ? ` of ${coupon.max_redemptions}` : ''}`,
            wide: true,
          },
          { header: 'State', cell: (coupon) => <StateBadge on={coupon.valid} label={['redeemable', 'closed']} /> },
          { header: 'Id', cell: (coupon) => <CopyId id={coupon.id} />, wide: true },
          {
            header: 'Actions',
            headerHidden: true,
            cell: (coupon) => (
              <button type="button" className="secondary" onClick={() => setAsking(coupon)}>
                Delete
                <span className="visually-hidden"> {coupon.name ?? coupon.id}</span>
              </button>
            ),
          },
        ]}
      />
      {asking && (
        <Confirm
          title={`Delete ${asking.name ?? asking.id}?`}
          message="It can no longer be redeemed. Discounts already made from it keep running to their end."
          confirm="Delete"
          danger
          busy={remove.isPending}
          onConfirm={() => remove.mutate(asking)}
          onClose={() => setAsking(undefined)}
        />
      )}
    </>
  );
}

function NewCoupon({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'percent' | 'amount'>('percent');
  const [value, setValue] = useState('');
  const [duration, setDuration] = useState<'once' | 'repeating' | 'forever'>('once');
  const [months, setMonths] = useState('3');
  const [limit, setLimit] = useState('');
  const [invalid, setInvalid] = useState<string>();
  const create = useMutation({
    mutationFn: (body: components['schemas']['CouponCreate']) => api.POST('/coupons', { body }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['coupons'] });
      onDone();
    },
  });
  const submit = () => {
    let off: Pick<components['schemas']['CouponCreate'], 'amount_off' | 'currency' | 'percent_off'>;
    if (kind === 'amount') {
      const cents = parseCents(value);
      setInvalid(cents === undefined ? 'Enter the amount in dollars and cents, e.g. 10.00.' : undefined);
      if (cents === undefined) return;
      off = { amount_off: cents, currency: CURRENCY };
    } else {
      setInvalid(undefined);
      // Not a number is NaN, which JSON sends as null: the API's refusal names `percent_off`.
      off = { percent_off: Number(value.replace(',', '.')) };
    }
    create.mutate({
      ...(name.trim() ? { name } : {}),
      ...off,
      duration,
      ...(duration === 'repeating' ? { duration_in_months: Number(months) } : {}),
      ...(limit.trim() ? { max_redemptions: Number(limit) } : {}),
    });
  };
  return (
    <CatalogForm
      label="New coupon"
      submit="Create coupon"
      busy={create.isPending}
      error={invalid ? new Error(invalid) : create.error}
      onSubmit={submit}
      onCancel={onDone}
    >
      <label>
        Name
        <input value={name} onChange={(event) => setName(event.target.value)} maxLength={100} />
      </label>
      <label>
        Takes off
        <select
          aria-label="Takes off"
          value={kind}
          onChange={(event) => setKind(event.target.value as 'percent' | 'amount')}
        >
          <option value="percent">a percentage</option>
          <option value="amount">an amount ({CURRENCY})</option>
        </select>
      </label>
      <label>
        {kind === 'percent' ? 'Percent off' : `Amount off (${CURRENCY})`}
        <input
          value={value}
          onChange={(event) => setValue(event.target.value)}
          inputMode="decimal"
          placeholder={kind === 'percent' ? '25' : '10.00'}
          required
          className="narrow"
        />
      </label>
      <label>
        For
        <select
          aria-label="For"
          value={duration}
          onChange={(event) => setDuration(event.target.value as 'once' | 'repeating' | 'forever')}
        >
          <option value="once">the next invoice</option>
          <option value="repeating">some months</option>
          <option value="forever">every invoice</option>
        </select>
      </label>
      {duration === 'repeating' && (
        <label>
          Months
          <input
            value={months}
            onChange={(event) => setMonths(event.target.value)}
            inputMode="numeric"
            required
            className="narrow"
          />
        </label>
      )}
      <label>
        Redemptions at most
        <input
          value={limit}
          onChange={(event) => setLimit(event.target.value)}
          inputMode="numeric"
          placeholder="no limit"
          className="narrow"
        />
      </label>
    </CatalogForm>
  );
}
