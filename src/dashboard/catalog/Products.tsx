import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../client/schema';
import { api } from '../api/client';
import type { Price, Product } from '../api/types';
import { formatInterval, formatMoney } from '../components/format';
import { Confirm, Failure, Loading } from '../components/common';
import { CopyId } from '../components/CopyId';
import { CatalogForm, ErrorLine, INTERVALS, parseCents } from './catalog-forms';
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

/** The body's price attributes, or the reason the draft is not one (checked here only for what the API cannot name: the amount's format). */
function priceBody(draft: PriceDraft): PerUnitPrice | string {
  const cents = parseCents(draft.amount);
  if (cents === undefined) return 'Enter the amount in dollars and cents, e.g. 49.00.';
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
      <label>
        Amount ({CURRENCY})
        <input
          value={draft.amount}
          onChange={(event) => set({ amount: event.target.value })}
          inputMode="decimal"
          placeholder="49.00"
          required
        />
      </label>
      <label>
        Billed
        <select
          aria-label="Billed"
          value={draft.type}
          onChange={(event) => set({ type: event.target.value as PriceDraft['type'] })}
        >
          <option value="recurring">Recurring</option>
          <option value="one_time">Once</option>
        </select>
      </label>
      {draft.type === 'recurring' && (
        <>
          <label>
            Every
            <input
              type="number"
              min={1}
              value={draft.intervalCount}
              onChange={(event) => set({ intervalCount: event.target.value })}
              className="narrow"
            />
          </label>
          <label>
            Interval
            <select
              aria-label="Interval"
              value={draft.interval}
              onChange={(event) => set({ interval: event.target.value as PriceDraft['interval'] })}
            >
              {INTERVALS.map((interval) => (
                <option key={interval} value={interval}>
                  {interval}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
      <label>
        Tax
        <select
          aria-label="Tax"
          value={draft.taxBehavior}
          onChange={(event) => set({ taxBehavior: event.target.value as PriceDraft['taxBehavior'] })}
        >
          <option value="exclusive">Added on top</option>
          <option value="inclusive">Included</option>
        </select>
      </label>
    </>
  );
}

/**
 * A form that creates something with a price (a product and its first price, or a price of a product):
 * the draft, the amount's check, the API call and its refusal, and the lists to read again on success.
 */
function usePriceCreation(
  create: (price: PerUnitPrice) => Promise<unknown>,
  refresh: readonly unknown[],
  onDone: () => void,
) {
  const queryClient = useQueryClient();
  const [price, setPrice] = useState(NEW_PRICE);
  const [invalid, setInvalid] = useState<string>();
  const creation = useMutation({
    mutationFn: create,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: refresh });
      onDone();
    },
  });
  const submit = () => {
    const attributes = priceBody(price);
    setInvalid(typeof attributes === 'string' ? attributes : undefined);
    if (typeof attributes !== 'string') creation.mutate(attributes);
  };
  return { price, setPrice, submit, busy: creation.isPending, error: invalid ? new Error(invalid) : creation.error };
}

export function NewProduct({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const form = usePriceCreation(
    (price) => api.POST('/products', { body: { ...price, name, ...(description ? { description } : {}) } }),
    ['products'],
    onDone,
  );
  return (
    <CatalogForm
      label="New product"
      submit="Create product"
      busy={form.busy}
      error={form.error}
      onSubmit={form.submit}
      onCancel={onDone}
    >
      <label>
        Product name
        <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} />
      </label>
      <label>
        Description
        <input value={description} onChange={(event) => setDescription(event.target.value)} maxLength={255} />
      </label>
      <PriceFields draft={form.price} onChange={form.setPrice} />
    </CatalogForm>
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
        <span className={`badge badge-${product.active ? 'active' : 'canceled'}`}>
          {product.active ? 'active' : 'inactive'}
        </span>
      </div>
      {product.description && <p>{product.description}</p>}
      <p className="muted small">
        <CopyId id={product.id} /> · tax code <code>{product.tax_code}</code>
      </p>
      {prices.isPending ? (
        <Loading />
      ) : prices.isError ? (
        <Failure error={prices.error} />
      ) : prices.data.data.length === 0 ? (
        <p className="muted">No prices.</p>
      ) : (
        <div className="table-scroll">
          <table className="prices">
            <caption className="visually-hidden">Prices of {product.name}</caption>
            <thead>
              <tr>
                <th scope="col">Price</th>
                <th scope="col">State</th>
                <th scope="col" className="hide-narrow">
                  Id
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {prices.data.data.map((price) => (
                <PriceRow key={price.id} price={price} isDefault={price.id === product.default_price} />
              ))}
            </tbody>
          </table>
        </div>
      )}
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
  const form = usePriceCreation(
    (price) => api.POST('/prices/{id}', { params: { path: { id: product.id } }, body: price }),
    ['prices', { product: product.id }],
    onDone,
  );
  return (
    <CatalogForm
      label={`New price of ${product.name}`}
      submit="Add price"
      busy={form.busy}
      error={form.error}
      onSubmit={() => form.submit()}
      onCancel={onDone}
    >
      <PriceFields draft={form.price} onChange={form.setPrice} />
    </CatalogForm>
  );
}

/**
 * A price is inactive until it is first billed, then active for good (spec, "Price activity": no
 * endpoint sets either). What the API lets a merchant do is delete one never billed, behind a confirm;
 * it refuses (409) when a subscription uses it, and that refusal is shown as the API words it.
 */
function PriceRow({ price, isDefault }: { price: Price; isDefault: boolean }) {
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
    <tr>
      <td>
        {amount} {formatInterval(price.recurring)}
        {isDefault && <span className="muted small"> · default</span>}
      </td>
      <td>
        <span className={`badge badge-${price.active ? 'active' : 'draft'}`}>
          {price.active ? 'active' : 'inactive'}
        </span>
        <span className="muted small"> {price.active ? 'billed' : 'never billed'}</span>
      </td>
      <td className="hide-narrow">
        <CopyId id={price.id} />
      </td>
      <td>
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
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
            onClose={() => setAsking(false)}
          />
        )}
      </td>
    </tr>
  );
}
