import { useEffect } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure, setCsrfToken, whenSignedOut, type Session } from './api';
import { navigate, useLocation } from './router';
import { Shell } from './Shell';
import { Login } from './pages/Login';
import { Home } from './pages/Home';
import { Customers } from './pages/Customers';
import { CustomerDetail } from './pages/CustomerDetail';
import { Subscriptions } from './pages/Subscriptions';
import { SubscriptionDetail } from './pages/SubscriptionDetail';
import { Settings } from './pages/Settings';
import { AcceptInvitation } from './pages/AcceptInvitation';
import { ForgotPassword, ResetPassword } from './pages/PasswordReset';
import { InvoiceDetail } from './pages/InvoiceDetail';
import { Invoices } from './pages/Invoices';
import { Payments } from './pages/Payments';
import { Catalog } from './pages/Catalog';
import { AuditLog } from './pages/AuditLog';
import { PaymentPlans } from './pages/PaymentPlans';
import { PaymentPlanDetail } from './pages/PaymentPlanDetail';
import { Developers } from './pages/Developers';
import { SESSION_KEY } from './session';
import { setTimeZone } from './format';

export function App() {
  const queryClient = useQueryClient();
  const { path } = useLocation();
  const session = useQuery<Session | null>({
    queryKey: SESSION_KEY,
    queryFn: async () => {
      try {
        return await api<Session>('GET', '/dashboard/api/session');
      } catch (error) {
        if (error instanceof ApiFailure && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: Infinity,
  });

  useEffect(() => {
    whenSignedOut(() => {
      queryClient.setQueryData(SESSION_KEY, null);
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
    });
  }, [queryClient]);
  setCsrfToken(session.data?.csrf_token);
  setTimeZone(session.data?.account?.time_zone);

  const signedIn = Boolean(session.data);
  // An invitation's page is for people not signed in yet (docs/api.md "Dashboard team").
  const invitation = path.startsWith('/invitations/') ? safeDecode(path.slice('/invitations/'.length)) : undefined;
  // So are the "forgot password" pages (docs/api.md "Dashboard sessions").
  const reset = path.startsWith('/reset-password/') ? safeDecode(path.slice('/reset-password/'.length)) : undefined;
  const forgot = path === '/forgot-password';
  const open = invitation !== undefined || reset !== undefined || forgot;
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
  if (invitation !== undefined) return <AcceptInvitation key={invitation} token={invitation} />;
  if (reset !== undefined) return <ResetPassword key={reset} token={reset} />;
  if (forgot) return <ForgotPassword />;
  if (!session.data) return <Login />;
  return (
    <Shell session={session.data} path={path}>
      <Page path={path} session={session.data} />
    </Shell>
  );
}

function Page({ path, session }: { path: string; session: Session }) {
  const [, section, id] = path.split('/');
  const canDevelop = session.account?.role === 'developer' || session.account?.role === 'superadmin';
  switch (section) {
    case '':
    case undefined:
      return <Home session={session} />;
    case 'customers':
      return id ? <CustomerDetail id={decodeURIComponent(id)} /> : <Customers />;
    case 'subscriptions':
      return id ? <SubscriptionDetail id={decodeURIComponent(id)} session={session} /> : <Subscriptions />;
    case 'invoices':
      return id ? <InvoiceDetail id={decodeURIComponent(id)} /> : <Invoices />;
    case 'payments':
      return id ? <NotFound /> : <Payments />;
    case 'catalog':
      return id ? <NotFound /> : <Catalog />;
    case 'payment-plans':
      return id ? <PaymentPlanDetail id={decodeURIComponent(id)} session={session} /> : <PaymentPlans />;
    case 'audit-log':
      return canDevelop ? <AuditLog /> : <NotFound />;
    case 'developers':
      return canDevelop ? <Developers tab={id} session={session} /> : <NotFound />;
    case 'settings':
      return <Settings session={session} />;
    default:
      return <NotFound />;
  }
}

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
    </>
  );
}

/** A path segment as written, when it is not valid percent-encoding (the API then says the link is unknown). */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
