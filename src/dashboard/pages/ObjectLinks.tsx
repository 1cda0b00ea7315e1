import { useQuery } from '@tanstack/react-query';
import { api, type Customer, type Subscription } from '../api';
import { subscriptionTitle } from '../names';
import { Link } from '../router';

/**
 * Links that name the object of a detail page's fact by its name, its id beneath (one read each, shared with
 * that object's own screen through the query cache); while it loads, or if it cannot be read, the id.
 */
export function SubscriptionLink({ id }: { id: string }) {
  const subscription = useQuery({
    queryKey: ['subscription', id],
    queryFn: () => api<Subscription>('GET', `/subscriptions/${encodeURIComponent(id)}?include=names`),
  });
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
  const customer = useQuery({
    queryKey: ['customer', id],
    queryFn: () => api<Customer>('GET', `/customers/${encodeURIComponent(id)}`),
  });
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
