import { useState, type ReactNode } from 'react';
import type { Session } from '../api';
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

/**
 * A secret the API answers once (an API key, a signing secret): shown until "Done", then gone from the
 * page; nothing else ever shows it again, so the reader is told to copy it now.
 */
export function SecretOnce({
  title,
  secret,
  children,
  onDone,
}: {
  title: string;
  secret: string;
  children?: ReactNode;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState('');
  const copy = () =>
    navigator.clipboard.writeText(secret).then(
      () => setCopied('Copied to the clipboard.'),
      () => setCopied('Copying failed: select the text and copy it.'),
    );
  return (
    <section className="card secret-once" aria-labelledby="secret-title">
      <h2 id="secret-title">{title}</h2>
      <p>Copy it now: it is shown this once and cannot be read again.</p>
      {children}
      <div className="secret-row">
        <input
          readOnly
          value={secret}
          aria-label={title}
          spellCheck={false}
          onFocus={(event) => event.target.select()}
        />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p className="notice small" role="status">
        {copied}
      </p>
      <button type="button" className="secondary" onClick={onDone}>
        Done, I have copied it
      </button>
    </section>
  );
}
