import type { Session } from '../api/types';
import { Link } from '../router';
import { ApiKeys } from './ApiKeys';
import { DeliveryLogs } from './DeliveryLogs';
import { WebhookDestinations } from './WebhookDestinations';
import { EventsList } from './Events';
import { TestEmails } from './TestEmails';

const TABS = [
  { tab: '', label: 'API keys' },
  { tab: 'webhooks', label: 'Webhooks' },
  { tab: 'logs', label: 'Delivery logs' },
  { tab: 'events', label: 'Events' },
  { tab: 'emails', label: 'Emails (test mode)' },
];

/** API keys, webhook destinations, their delivery logs, the account's events and the emails caught in test mode: developers and superadmins only (the API checks too). */
export function Developers({ tab, session }: { tab: string | undefined; session: Session }) {
  const current = TABS.find((item) => item.tab === (tab ?? '')) ?? TABS[0]!;
  return (
    <>
      <h1>Developers</h1>
      <nav className="tabs" aria-label="Developers">
        {TABS.map((item) => (
          <Link
            key={item.tab || 'keys'}
            to={item.tab ? `/developers/${item.tab}` : '/developers'}
            aria-current={item === current ? 'page' : undefined}
          >
            {item.label}
          </Link>
        ))}
      </nav>
      {current.tab === '' ? (
        <ApiKeys role={session.account?.role ?? 'standard'} />
      ) : current.tab === 'webhooks' ? (
        <WebhookDestinations />
      ) : current.tab === 'events' ? (
        <EventsList />
      ) : current.tab === 'logs' ? (
        <DeliveryLogs />
      ) : (
        <TestEmails />
      )}
    </>
  );
}
