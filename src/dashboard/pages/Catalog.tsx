import { useState, type FormEvent, type ReactNode } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type CatalogPrice, type Coupon, type Page, type Product, type TaxRate } from '../api';
import { formatInterval, formatMoney } from '../components/format';
import { navigate, useLocation } from '../router';
import { Confirm, Empty, Failure, Loading, Pager } from './common';
import { CopyId } from '../components/CopyId';

/** GET /products takes at most 50 a page (spec, "Limits"). */
const TAKE = 10;
/** The only currency the contract allows for prices (spec, "Price attributes"). */
const CURRENCY = 'USD';
const INTERVALS = ['day', 'week', 'month', 'year'] as const;

/** Money typed as the reader writes it (`49`, `49.9`, `49.90`) in integer cents, or undefined if it is not money. */
export function parseCents(text: string): number | undefined {
  const match = /^\s*(\d{1,6})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

function ErrorLine({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error instanceof Error ? error.message : 'Something went wrong.'}
    </p>
  );
}

export function Catalog() {
  const { search } = useLocation();
  const page = Math.max(1, Number(search.get('page')) || 1);
  const products = useQuery({
    queryKey: ['products', { page }],
    queryFn: () => api<Page<Product>>('GET', `/products?page=${page}&take=${TAKE}`),
    placeholderData: keepPreviousData,
  });
  const [creating, setCreating] = useState(false);

  return (
    <>
      <div className="title-row">
        <h1>Catalog</h1>
        {!creating && (
          <button type="button" onClick={() => setCreating(true)}>
            New product
          </button>
        )}
      </div>
      {creating && <NewProduct onDone={() => setCreating(false)} />}

      <h2>Products</h2>
      {products.isPending ? (
        <Loading />
      ) : products.isError ? (
        <Failure error={products.error} />
      ) : products.data.data.length === 0 ? (
        <Empty>
          <p>No products yet. A product has a name and its first price.</p>
        </Empty>
      ) : (
        <ul className="catalog-products">
          {products.data.data.map((product) => (
            <ProductCard key={product.id} product={product} />
          ))}
        </ul>
      )}
      {products.data && (
        <Pager
          page={page}
          hasNext={page < products.data.meta.pagesTotal}
          onPage={(next) => navigate(next > 1 ? `/catalog?page=${next}` : '/catalog', { replace: true })}
          label={`Page ${page} of ${Math.max(1, products.data.meta.pagesTotal)}`}
        />
      )}

      <TaxRates />
      <Coupons />
    </>
  );
}

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

/** The body's price attributes, or the reason the draft is not one (checked here only for what the API cannot name: the amount's format). */
function priceBody(draft: PriceDraft): Record<string, unknown> | string {
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

/** A form that shows the API's refusal under it and stays filled, so the reader can correct it. */
function CatalogForm(props: {
  label: string;
  submit: string;
  busy: boolean;
  error: unknown;
  onSubmit: () => void;
  onCancel: () => void;
  children: ReactNode;
}) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit();
  };
  return (
    <form className="card catalog-form" onSubmit={submit} aria-label={props.label}>
      <div className="filters">{props.children}</div>
      <ErrorLine error={props.error} />
      <div className="actions">
        <button type="button" className="secondary" onClick={props.onCancel} disabled={props.busy}>
          Cancel
        </button>
        <button type="submit" disabled={props.busy}>
          {props.busy ? 'Saving…' : props.submit}
        </button>
      </div>
    </form>
  );
}

/**
 * A form that creates something with a price (a product and its first price, or a price of a product):
 * the draft, the amount's check, the API call and its refusal, and the lists to read again on success.
 */
function usePriceCreation(path: string, refresh: readonly unknown[], onDone: () => void) {
  const queryClient = useQueryClient();
  const [price, setPrice] = useState(NEW_PRICE);
  const [invalid, setInvalid] = useState<string>();
  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) => api<unknown>('POST', path, body),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: refresh });
      onDone();
    },
  });
  const submit = (extra: Record<string, unknown> = {}) => {
    const attributes = priceBody(price);
    setInvalid(typeof attributes === 'string' ? attributes : undefined);
    if (typeof attributes !== 'string') create.mutate({ ...attributes, ...extra });
  };
  return { price, setPrice, submit, busy: create.isPending, error: invalid ? new Error(invalid) : create.error };
}

function NewProduct({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const form = usePriceCreation('/products', ['products'], onDone);
  return (
    <CatalogForm
      label="New product"
      submit="Create product"
      busy={form.busy}
      error={form.error}
      onSubmit={() => form.submit({ name, ...(description ? { description } : {}) })}
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

function ProductCard({ product }: { product: Product }) {
  const search = JSON.stringify({ product: product.id });
  const prices = useQuery({
    queryKey: ['prices', { product: product.id }],
    queryFn: () => api<Page<CatalogPrice>>('GET', `/prices?take=100&search=${encodeURIComponent(search)}`),
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
    `/prices/${encodeURIComponent(product.id)}`,
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
function PriceRow({ price, isDefault }: { price: CatalogPrice; isDefault: boolean }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    mutationFn: () => api('DELETE', `/prices/${encodeURIComponent(price.id)}`),
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

function TaxRates() {
  const queryClient = useQueryClient();
  const rates = useQuery({
    queryKey: ['taxRates'],
    queryFn: () => api<Page<TaxRate>>('GET', '/taxRates?take=100'),
  });
  const [creating, setCreating] = useState(false);
  const [asking, setAsking] = useState<TaxRate>();
  const toggle = useMutation({
    mutationFn: (rate: TaxRate) =>
      api<TaxRate>('PATCH', `/taxRates/${encodeURIComponent(rate.id)}`, { active: !rate.active }),
    onSuccess: () => {
      setAsking(undefined);
      void queryClient.invalidateQueries({ queryKey: ['taxRates'] });
    },
    onError: () => setAsking(undefined),
  });

  return (
    <>
      <div className="title-row">
        <h2>Tax rates</h2>
        {!creating && (
          <button type="button" className="secondary" onClick={() => setCreating(true)}>
            New tax rate
          </button>
        )}
      </div>
      {creating && <NewTaxRate onDone={() => setCreating(false)} />}
      <ErrorLine error={toggle.error} />
      {rates.isPending ? (
        <Loading />
      ) : rates.isError ? (
        <Failure error={rates.error} />
      ) : rates.data.data.length === 0 ? (
        <Empty>
          <p>No tax rates yet.</p>
        </Empty>
      ) : (
        <div className="card table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">Tax rate</th>
                <th scope="col">Rate</th>
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
              {rates.data.data.map((rate) => (
                <tr key={rate.id}>
                  <td>{rate.display_name}</td>
                  <td>
                    {rate.percentage}% {rate.inclusive ? 'included' : 'added on top'}
                  </td>
                  <td>
                    <span className={`badge badge-${rate.active ? 'active' : 'canceled'}`}>
                      {rate.active ? 'active' : 'inactive'}
                    </span>
                  </td>
                  <td className="hide-narrow">
                    <CopyId id={rate.id} />
                  </td>
                  <td>
                    <button type="button" className="secondary" onClick={() => setAsking(rate)}>
                      {rate.active ? 'Deactivate' : 'Activate'}
                      <span className="visually-hidden"> {rate.display_name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {asking && (
        <Confirm
          title={asking.active ? `Deactivate ${asking.display_name}?` : `Activate ${asking.display_name}?`}
          message={
            asking.active
              ? 'The next invoices of subscriptions that carry it stop applying it; invoices already made keep it.'
              : 'Subscriptions that carry it apply it again from their next invoice.'
          }
          confirm={asking.active ? 'Deactivate' : 'Activate'}
          danger={asking.active}
          busy={toggle.isPending}
          onConfirm={() => toggle.mutate(asking)}
          onClose={() => setAsking(undefined)}
        />
      )}
    </>
  );
}

function NewTaxRate({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [displayName, setDisplayName] = useState('');
  const [percentage, setPercentage] = useState('');
  const [inclusive, setInclusive] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      api<TaxRate>('POST', '/taxRates', {
        display_name: displayName,
        // Not a number is NaN, which JSON sends as null: the API's refusal names `percentage`.
        percentage: percentage.trim() === '' ? null : Number(percentage.replace(',', '.')),
        inclusive,
      }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['taxRates'] });
      onDone();
    },
  });
  return (
    <CatalogForm
      label="New tax rate"
      submit="Create tax rate"
      busy={create.isPending}
      error={create.error}
      onSubmit={() => create.mutate()}
      onCancel={onDone}
    >
      <label>
        Name
        <input value={displayName} onChange={(event) => setDisplayName(event.target.value)} required maxLength={100} />
      </label>
      <label>
        Percentage
        <input
          value={percentage}
          onChange={(event) => setPercentage(event.target.value)}
          inputMode="decimal"
          placeholder="8.25"
          required
          className="narrow"
        />
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={inclusive} onChange={(event) => setInclusive(event.target.checked)} />
        Included in prices
      </label>
    </CatalogForm>
  );
}

/** "25% off" or "$10.00 off", and how long: once, for 3 months, forever (docs/api.md, "Coupons and discounts"). */
export function couponTerms(coupon: Coupon): string {
  const off =
    coupon.percent_off !== null
      ? `${coupon.percent_off}% off`
      : `${formatMoney(coupon.amount_off ?? 0, coupon.currency ?? CURRENCY)} off`;
  const duration =
    coupon.duration === 'repeating'
      ? `for ${coupon.duration_in_months} month${coupon.duration_in_months === 1 ? '' : 's'}`
      : coupon.duration === 'once'
        ? 'once'
        : 'forever';
  return `${off}, ${duration}`;
}

/** The account's coupons: listed, created, deleted (a deleted coupon takes no new redemption; its discounts run on). */
function Coupons() {
  const queryClient = useQueryClient();
  const coupons = useQuery({
    queryKey: ['coupons'],
    queryFn: () => api<Page<Coupon>>('GET', '/coupons?take=100'),
  });
  const [creating, setCreating] = useState(false);
  const [asking, setAsking] = useState<Coupon>();
  const remove = useMutation({
    mutationFn: (coupon: Coupon) => api<unknown>('DELETE', `/coupons/${encodeURIComponent(coupon.id)}`),
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
      {coupons.isPending ? (
        <Loading />
      ) : coupons.isError ? (
        <Failure error={coupons.error} />
      ) : coupons.data.data.length === 0 ? (
        <Empty>
          <p>
            No coupons yet. A coupon takes a percentage or an amount off a customer&apos;s or a subscription&apos;s
            invoices.
          </p>
        </Empty>
      ) : (
        <div className="card table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">Coupon</th>
                <th scope="col">Discount</th>
                <th scope="col" className="hide-narrow">
                  Redeemed
                </th>
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
              {coupons.data.data.map((coupon) => (
                <tr key={coupon.id}>
                  <td>{coupon.name ?? coupon.id}</td>
                  <td>{couponTerms(coupon)}</td>
                  <td className="hide-narrow">
                    {coupon.times_redeemed}
                    {coupon.max_redemptions !== null ? ` of ${coupon.max_redemptions}` : ''}
                  </td>
                  <td>
                    <span className={`badge badge-${coupon.valid ? 'active' : 'canceled'}`}>
                      {coupon.valid ? 'redeemable' : 'closed'}
                    </span>
                  </td>
                  <td className="hide-narrow">
                    <CopyId id={coupon.id} />
                  </td>
                  <td>
                    <button type="button" className="secondary" onClick={() => setAsking(coupon)}>
                      Delete
                      <span className="visually-hidden"> {coupon.name ?? coupon.id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
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
    mutationFn: (body: Record<string, unknown>) => api<Coupon>('POST', '/coupons', body),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['coupons'] });
      onDone();
    },
  });
  const submit = () => {
    let off: Record<string, unknown>;
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
