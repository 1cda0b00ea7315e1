import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../client/schema';
import { api, fieldFailure } from '../api/client';
import type { Coupon } from '../api/types';
import { StateBadge } from '../components/badges';
import { Confirm } from '../components/dialogs';
import { Table } from '../components/Table';
import { CopyId } from '../components/CopyId';
import { Field, Form, numberOf, SelectField } from '../components/form';
import { ErrorLine, parseCents } from './catalog-forms';
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
          action={{ isPending: remove.isPending }}
          onConfirm={() => remove.mutate(asking)}
          onClose={() => setAsking(undefined)}
        />
      )}
    </>
  );
}

type Duration = 'once' | 'repeating' | 'forever';

function NewCoupon({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'percent' | 'amount'>('percent');
  const [value, setValue] = useState('');
  const [duration, setDuration] = useState<Duration>('once');
  const [months, setMonths] = useState('3');
  const [limit, setLimit] = useState('');
  const create = useMutation({
    mutationFn: () => api.POST('/coupons', { body: couponBody() }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['coupons'] });
      onDone();
    },
  });
  const couponBody = (): components['schemas']['CouponCreate'] => {
    let off: Pick<components['schemas']['CouponCreate'], 'amount_off' | 'currency' | 'percent_off'>;
    if (kind === 'amount') {
      const cents = parseCents(value);
      if (cents === undefined) throw fieldFailure('amount_off', 'Enter the amount in dollars and cents, e.g. 10.00.');
      off = { amount_off: cents, currency: CURRENCY };
    } else {
      // Not a number is NaN, which JSON sends as null: the API's refusal names `percent_off`.
      off = { percent_off: numberOf(value) };
    }
    return {
      ...(name.trim() ? { name } : {}),
      ...off,
      duration,
      ...(duration === 'repeating' ? { duration_in_months: Number(months) } : {}),
      ...(limit.trim() ? { max_redemptions: Number(limit) } : {}),
    };
  };
  return (
    <Form
      layout="card"
      label="New coupon"
      submit="Create coupon"
      busyLabel="Saving…"
      action={create}
      onSubmit={() => create.mutate()}
      onCancel={onDone}
    >
      <Field label="Name" value={name} onValue={setName} maxLength={100} />
      <SelectField label="Takes off" value={kind} onValue={(picked) => setKind(picked as 'percent' | 'amount')}>
        <option value="percent">a percentage</option>
        <option value="amount">an amount ({CURRENCY})</option>
      </SelectField>
      <Field
        label={kind === 'percent' ? 'Percent off' : `Amount off (${CURRENCY})`}
        value={value}
        onValue={setValue}
        inputMode="decimal"
        placeholder={kind === 'percent' ? '25' : '10.00'}
        required
        inputClassName="narrow"
      />
      <SelectField label="For" value={duration} onValue={(picked) => setDuration(picked as Duration)}>
        <option value="once">the next invoice</option>
        <option value="repeating">some months</option>
        <option value="forever">every invoice</option>
      </SelectField>
      {duration === 'repeating' && (
        <Field label="Months" value={months} onValue={setMonths} inputMode="numeric" required inputClassName="narrow" />
      )}
      <Field
        label="Redemptions at most"
        value={limit}
        onValue={setLimit}
        inputMode="numeric"
        placeholder="no limit"
        inputClassName="narrow"
      />
    </Form>
  );
}
