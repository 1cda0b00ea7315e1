import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { subscriptionTitle } from './names';
import { Link } from '../router';

/** The dashboard's page of an object named by its id, where there is one. */
export function objectPath(id: string): string | null {
  if (id.startsWith('cus_')) return `/customers/${id}`;
  if (id.startsWith('sub_')) return `/subscriptions/${id}`;
  if (id.startsWith('pp_')) return `/payment-plans/${id}`;
  // Invoices are UUIDs.
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-/.test(id)) return `/invoices/${id}`;
  return null;
}

/** The object's workflow in the Temporal Web UI (operators' view of the same object), in a new tab. */
export function WorkflowLink({ url }: { url: string }) {
  return (
    <a className="button-link" href={url} target="_blank" rel="noreferrer">
      Workflow in Temporal
    </a>
  );
}

/** The subscription read with its names (include=names): what its links and title show. */
export function readSubscription(id: string) {
  return api.GET('/subscriptions/{id}', { params: { path: { id }, query: { include: 'names' } } });
}

export function readCustomer(id: string) {
  return api.GET('/customers/{externalKey}', { params: { path: { externalKey: id } } });
}

/**
 * Links that name the object of a detail page's fact by its name, its id beneath (one read each, shared with
 * that object's own screen through the query cache); while it loads, or if it cannot be read, the id.
 */
export function SubscriptionLink({ id }: { id: string }) {
  const subscription = useQuery({ queryKey: ['subscription', id], queryFn: () => readSubscription(id) });
  return (
    <>
      <Link to={`/subscriptions/${id}`}>
        {subscription.data ? subscriptionTitle(subscription.data) : <code>{id}</code>}
      </Link>
      {subscription.data && (
        <div className="muted small">
          <code>{id}</code>
        </div>
      )}
    </>
  );
}

export function CustomerLink({ id }: { id: string }) {
  const customer = useQuery({ queryKey: ['customer', id], queryFn: () => readCustomer(id) });
  return (
    <>
      <Link to={`/customers/${id}`}>{customer.data ? customer.data.name : <code>{id}</code>}</Link>
      {customer.data && (
        <div className="muted small">
          <code>{id}</code>
        </div>
      )}
    </>
  );
}
