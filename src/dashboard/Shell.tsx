import type { ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api } from './api/client';
import type { Session } from './api/types';
import { SESSION_KEY } from './api/session';
import { GlobalSearch } from './GlobalSearch';
import { Link, navigate } from './router';
import { navigationFor } from './routes';

export function Shell({ session, path, children }: { session: Session; path: string; children: ReactNode }) {
  const queryClient = useQueryClient();
  const role = session.account?.role;

  const switchAccount = async (account: string) => {
    const next = await api.POST('/dashboard/api/session/account', { body: { account } });
    // Every cached answer was the other account's.
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
    queryClient.setQueryData(SESSION_KEY, next);
    navigate('/');
  };
  const logout = async () => {
    await api.DELETE('/dashboard/api/session').catch(() => undefined);
    queryClient.clear();
    queryClient.setQueryData(SESSION_KEY, null);
    navigate('/login');
  };

  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">Billing</span>
        <GlobalSearch />
        <div className="account">
          {session.accounts.length > 1 ? (
            <label>
              <span className="visually-hidden">Account</span>
              <select
                aria-label="Account"
                value={session.account?.id}
                onChange={(event) => void switchAccount(event.target.value)}
              >
                {session.accounts.map((account) => (
                  <option key={account.id} value={account.id}>
                    {account.name}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <span className="account-name">{session.account?.name}</span>
          )}
          <span className="role">{role}</span>
        </div>
        <span className="user" title={session.user.email}>
          {session.user.name}
        </span>
        <button type="button" className="secondary" onClick={() => void logout()}>
          Log out
        </button>
      </header>
      <nav className="sidebar" aria-label="Main">
        <ul>
          {navigationFor(role).map((item) => {
            const current = item.to === '/' ? path === '/' : path === item.to || path.startsWith(`${item.to}/`);
            return (
              <li key={item.to}>
                <Link to={item.to} aria-current={current ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main className="content">{children}</main>
    </div>
  );
}
