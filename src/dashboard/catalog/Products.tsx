import { useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../client/schema';
import { api, fieldFailure } from '../api/client';
import type { Price, Product } from '../api/types';
import { formatInterval, formatMoney } from '../components/format';
import { StateBadge } from '../components/badges';
import { Confirm } from '../components/dialogs';
import { Table } from '../components/Table';
import { CopyId } from '../components/CopyId';
import { Field, Form, Options, SelectField } from '../components/form';
import { ErrorLine, INTERVALS, parseCents } from './catalog-forms';
import { CURRENCY } from './terms';

/** A price's attributes as the create forms take them (POST /products, POST /prices/{product}). */
interface PriceDraft {
  amount: string;
  type: 'recurring' | 'one_time';
  interval: (typeof INTERVALS)[number];
  intervalCount: string;
  taxBehavior: 'exclusive' | 'inclusive';
}

const NEW_PRICE: PriceDraft = {
  amount: '',
  type: 'recurring',
  interval: 'month',
  intervalCount: '1',
  taxBehavior: 'exclusive',
};

/** A per-unit price's attributes: what POST /products takes for its default price, and POST /prices too. */
type PerUnitPrice = components['schemas']['PriceCreate'] & { unit_amount: number };

/** The body's price attributes; the amount's format is checked here, the only thing the API cannot name. */
function priceBody(draft: PriceDraft): PerUnitPrice {
  const cents = parseCents(draft.amount);
  if (cents === undefined) throw fieldFailure('unit_amount', 'Enter the amount in dollars and cents, e.g. 49.00.');
  return {
    currency: CURRENCY,
    unit_amount: cents,
    type: draft.type,
    tax_behavior: draft.taxBehavior,
    ...(draft.type === 'recurring'
      ? { recurring: { interval: draft.interval, interval_count: Number(draft.intervalCount) } }
      : {}),
  };
}

function PriceFields({ draft, onChange }: { draft: PriceDraft; onChange: (draft: PriceDraft) => void }) {
  const set = (next: Partial<PriceDraft>) => onChange({ ...draft, ...next });
  return (
    <>
      <Field
        label={`Amount (${CURRENCY})`}
        value={draft.amount}
        onValue={(amount) => set({ amount })}
        inputMode="decimal"
        placeholder="49.00"
        required
      />
      <SelectField label="Billed" value={draft.type} onValue={(type) => set({ type: type as PriceDraft['type'] })}>
        <option value="recurring">Recurring</option>
        <option value="one_time">Once</option>
      </SelectField>
      {draft.type === 'recurring' && (
        <>
          <Field
            label="Every"
            type="number"
            min={1}
            value={draft.intervalCount}
            onValue={(intervalCount) => set({ intervalCount })}
            inputClassName="narrow"
          />
          <SelectField
            label="Interval"
            value={draft.interval}
            onValue={(interval) => set({ interval: interval as PriceDraft['interval'] })}
          >
            <Options values={INTERVALS} />
          </SelectField>
        </>
      )}
      <SelectField
        label="Tax"
        value={draft.taxBehavior}
        onValue={(taxBehavior) => set({ taxBehavior: taxBehavior as PriceDraft['taxBehavior'] })}
      >
        <option value="exclusive">Added on top</option>
        <option value="inclusive">Included</option>
      </SelectField>
    </>
  );
}

/**
 * A form that creates something with a price (a product and its first price, or a price of a product): the
 * draft, the amount's check, the API call and its refusal, and the lists to read again on success.
 */
function PriceForm(props: {
  label: string;
  submit: string;
  create: (price: PerUnitPrice) => Promise<unknown>;
  refresh: readonly unknown[];
  onDone: () => void;
  /** The fields before the price's (a product's name and description). */
  children?: ReactNode;
}) {
  const queryClient = useQueryClient();
  const [price, setPrice] = useState(NEW_PRICE);
  const creation = useMutation({
    mutationFn: () => props.create(priceBody(price)),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: props.refresh });
      props.onDone();
    },
  });
  return (
    <Form
      layout="card"
      label={props.label}
      submit={props.submit}
      busyLabel="Saving…"
      action={creation}
      onSubmit={() => creation.mutate()}
      onCancel={props.onDone}
    >
      {props.children}
      <PriceFields draft={price} onChange={setPrice} />
    </Form>
  );
}

export function NewProduct({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  return (
    <PriceForm
      label="New product"
      submit="Create product"
      create={(price) => api.POST('/products', { body: { ...price, name, ...(description ? { description } : {}) } })}
      refresh={['products']}
      onDone={onDone}
    >
      <Field label="Product name" value={name} onValue={setName} required maxLength={100} />
      <Field label="Description" value={description} onValue={setDescription} maxLength={255} />
    </PriceForm>
  );
}

export function ProductCard({ product }: { product: Product }) {
  const search = JSON.stringify({ product: product.id });
  const prices = useQuery({
    queryKey: ['prices', { product: product.id }],
    queryFn: () => api.GET('/prices', { params: { query: { take: 100, search } } }),
  });
  const [adding, setAdding] = useState(false);
  const headingId = `product-${product.id}`;
  return (
    <li className="card catalog-product" aria-labelledby={headingId}>
      <div className="title-row">
        <h3 id={headingId}>{product.name}</h3>
        <StateBadge on={product.active} label={['active', 'inactive']} />
      </div>
      {product.description && <p>{product.description}</p>}
      <p className="muted small">
        <CopyId id={product.id} /> · tax code <code>{product.tax_code}</code>
      </p>
      <Table
        query={prices}
        rows={prices.data?.data}
        rowKey={(price) => price.id}
        frame="scroll"
        className="prices"
        caption={`Prices of ${product.name}`}
        quietEmpty
        empty="No prices."
        columns={[
          {
            header: 'Price',
            cell: (price) => (
              <>
                {formatMoney(price.unit_amount, price.currency)} {formatInterval(price.recurring)}
                {price.id === product.default_price && <span className="muted small"> · default</span>}
              </>
            ),
          },
          {
            header: 'State',
            cell: (price) => (
              <>
                <StateBadge on={price.active} label={['active', 'inactive']} offStatus="draft" />
                <span className="muted small"> {price.active ? 'billed' : 'never billed'}</span>
              </>
            ),
          },
          { header: 'Id', cell: (price) => <CopyId id={price.id} />, wide: true },
          { header: 'Actions', headerHidden: true, cell: (price) => <DeletePrice price={price} /> },
        ]}
      />
      {adding ? (
        <NewPrice product={product} onDone={() => setAdding(false)} />
      ) : (
        <button type="button" className="secondary" onClick={() => setAdding(true)}>
          Add a price<span className="visually-hidden"> to {product.name}</span>
        </button>
      )}
    </li>
  );
}

function NewPrice({ product, onDone }: { product: Product; onDone: () => void }) {
  return (
    <PriceForm
      label={`New price of ${product.name}`}
      submit="Add price"
      create={(price) => api.POST('/prices/{id}', { params: { path: { id: product.id } }, body: price })}
      refresh={['prices', { product: product.id }]}
      onDone={onDone}
    />
  );
}

/**
 * A price is inactive until it is first billed, then active for good (spec, "Price activity": no
 * endpoint sets either). What the API lets a merchant do is delete one never billed, behind a confirm;
 * it refuses (409) when a subscription uses it, and that refusal is shown as the API words it.
 */
function DeletePrice({ price }: { price: Price }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    mutationFn: () => api.DELETE('/prices/{id}', { params: { path: { id: price.id } } }),
    onSuccess: () => {
      setAsking(false);
      void queryClient.invalidateQueries({ queryKey: ['prices', { product: price.product }] });
    },
    onError: () => setAsking(false),
  });
  const amount = formatMoney(price.unit_amount, price.currency);
  return (
    <>
      {!price.active && (
        <button type="button" className="secondary" onClick={() => setAsking(true)}>
          Delete<span className="visually-hidden"> price {price.id}</span>
        </button>
      )}
      <ErrorLine error={remove.error} />
      {asking && (
        <Confirm
          title="Delete this price?"
          message={`The price of ${amount} ${formatInterval(price.recurring)} is deleted for good. A price a subscription uses cannot be deleted.`}
          confirm="Delete price"
          danger
          action={{ isPending: remove.isPending }}
          onConfirm={() => remove.mutate()}
          onClose={() => setAsking(false)}
        />
      )}
    </>
  );
}
