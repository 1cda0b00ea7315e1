import type { Subscription } from '../api/types';
import { StatusBadge } from '../components/badges';
import { subscriptionTitle } from '../components/names';
import type { Column } from '../components/Table';
import { subscriptionAmount } from './facts';

/** The columns every list of subscriptions starts with: what it sells (linking its page), its status, its amount. */
export const SUBSCRIPTION_COLUMNS: readonly Column<Subscription>[] = [
  {
    header: 'Subscription',
    cell: subscriptionTitle,
    link: (subscription) => `/subscriptions/${subscription.id}`,
    note: (subscription) => <code>{subscription.id}</code>,
  },
  { header: 'Status', cell: (subscription) => <StatusBadge status={subscription.status} /> },
  { header: 'Amount', cell: subscriptionAmount },
];
