import { useEffect } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure, setCsrfToken, whenSignedOut } from './api/client';
import type { Session } from './api/types';
import { SESSION_KEY } from './api/session';
import { navigate, useLocation } from './router';
import { Shell } from './Shell';
import { mayOpen, ROUTES, routeOf, type Route } from './routes';
import { setTimeZone } from './components/format';

/** The signed-in session (null while signed out), read once and kept: sign-in, sign-out and switching set it. */
async function readSession(): Promise<Session | null> {
  try {
    return await api.GET('/dashboard/api/session');
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 401) return null;
    throw error;
  }
}

const SIGN_IN = ROUTES.find((route): route is Route & { access: 'signed-out' } => route.access === 'signed-out')!;

export function App() {
  const queryClient = useQueryClient();
  const { path } = useLocation();
  const session = useQuery<Session | null>({ queryKey: SESSION_KEY, queryFn: readSession, staleTime: Infinity });

  useEffect(() => {
    whenSignedOut(() => {
      queryClient.setQueryData(SESSION_KEY, null);
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
    });
  }, [queryClient]);
  setCsrfToken(session.data?.csrf_token);
  setTimeZone(session.data?.account?.time_zone);

  const signedIn = Boolean(session.data);
  const found = routeOf(path);
  const open = found?.route.access === 'anyone';
  useEffect(() => {
    if (session.isPending || open) return;
    if (!signedIn && path !== '/login') navigate('/login', { replace: true });
    if (signedIn && path === '/login') navigate('/', { replace: true });
  }, [signedIn, session.isPending, path, open]);

  if (session.isPending) return <p className="loading">Loading…</p>;
  if (session.isError)
    return (
      <main className="login">
        <p role="alert">The dashboard cannot reach the service: {session.error.message}</p>
      </main>
    );
  if (found?.route.access === 'anyone') return found.route.screen({ params: found.params });
  if (!session.data) return SIGN_IN.screen({ params: {} });
  const role = session.data.account?.role;
  return (
    <Shell session={session.data} path={path}>
      {found && !found.route.access && mayOpen(found.route, role) ? (
        found.route.screen({ params: found.params, session: session.data })
      ) : (
        <NotFound />
      )}
    </Shell>
  );
}

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
    </>
  );
}
