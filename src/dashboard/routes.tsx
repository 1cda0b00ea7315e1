import type { ReactNode } from 'react';
import type { Role, Session } from './api/types';
import { matchPath } from './router';
import { Login } from './auth/Login';
import { AcceptInvitation } from './auth/AcceptInvitation';
import { ForgotPassword, ResetPassword } from './auth/PasswordReset';
import { Home } from './home/Home';
import { Customers } from './customers/Customers';
import { CustomerDetail } from './customers/CustomerDetail';
import { Subscriptions } from './subscriptions/Subscriptions';
import { SubscriptionDetail } from './subscriptions/SubscriptionDetail';
import { Invoices } from './billing/Invoices';
import { InvoiceDetail } from './billing/InvoiceDetail';
import { Payments } from './billing/Payments';
import { Catalog } from './catalog/Catalog';
import { PaymentPlans } from './payment-plans/PaymentPlans';
import { PaymentPlanDetail } from './payment-plans/PaymentPlanDetail';
import { AuditLog } from './developers/AuditLog';
import { Developers } from './developers/Developers';
import { Settings } from './settings/Settings';

type Params = Readonly<Record<string, string>>;

/** A screen of the signed-in dashboard, in its frame (navigation, search, account). */
interface SignedInRoute {
  /** The path below /dashboard; `:name` takes a segment as a parameter (given decoded). */
  path: string;
  screen: (props: { params: Params; session: Session }) => ReactNode;
  /** Its entry in the main navigation, in the table's order (a list's own screen). */
  nav?: string;
  /** Who may open it, and sees it in the navigation; every role when absent (the API checks again, always). */
  roles?: readonly Role[];
  access?: undefined;
}

/**
 * A screen without the frame: `anyone`'s are shown signed in or not (an invitation's, a password reset's),
 * `signed-out` is the sign-in screen, which every address shows once the session has ended.
 */
interface OpenRoute {
  path: string;
  screen: (props: { params: Params }) => ReactNode;
  access: 'anyone' | 'signed-out';
}

export type Route = SignedInRoute | OpenRoute;

const DEVELOPERS: readonly Role[] = ['developer', 'superadmin'];

/**
 * Every screen of the dashboard, in one table that feeds the router (App), the main navigation (Shell) and the
 * role gates of both: adding a screen is one entry (docs/architecture.md, "The dashboard").
 */
export const ROUTES: readonly Route[] = [
  { path: '/', nav: 'Home', screen: ({ session }) => <Home session={session} /> },
  { path: '/customers', nav: 'Customers', screen: () => <Customers /> },
  { path: '/customers/:id', screen: ({ params }) => <CustomerDetail id={params.id!} /> },
  { path: '/subscriptions', nav: 'Subscriptions', screen: () => <Subscriptions /> },
  {
    path: '/subscriptions/:id',
    screen: ({ params, session }) => <SubscriptionDetail id={params.id!} session={session} />,
  },
  { path: '/invoices', nav: 'Invoices', screen: () => <Invoices /> },
  { path: '/invoices/:id', screen: ({ params }) => <InvoiceDetail id={params.id!} /> },
  { path: '/payments', nav: 'Payments', screen: () => <Payments /> },
  { path: '/catalog', nav: 'Catalog', screen: () => <Catalog /> },
  { path: '/payment-plans', nav: 'Payment plans', screen: () => <PaymentPlans /> },
  {
    path: '/payment-plans/:id',
    screen: ({ params, session }) => <PaymentPlanDetail id={params.id!} session={session} />,
  },
  { path: '/audit-log', nav: 'Audit log', roles: DEVELOPERS, screen: () => <AuditLog /> },
  {
    path: '/developers',
    nav: 'Developers',
    roles: DEVELOPERS,
    screen: ({ session }) => <Developers tab={undefined} session={session} />,
  },
  {
    path: '/developers/:tab',
    roles: DEVELOPERS,
    screen: ({ params, session }) => <Developers tab={params.tab} session={session} />,
  },
  { path: '/settings', nav: 'Settings', screen: ({ session }) => <Settings session={session} /> },
  { path: '/login', access: 'signed-out', screen: () => <Login /> },
  // For people not signed in yet (docs/api.md "Dashboard team" and "Dashboard sessions").
  {
    path: '/invitations/:token',
    access: 'anyone',
    screen: ({ params }) => <AcceptInvitation key={params.token} token={params.token!} />,
  },
  {
    path: '/reset-password/:token',
    access: 'anyone',
    screen: ({ params }) => <ResetPassword key={params.token} token={params.token!} />,
  },
  { path: '/forgot-password', access: 'anyone', screen: () => <ForgotPassword /> },
];

/** The route `path` opens, with its parameters; undefined for none. */
export function routeOf(path: string): { route: Route; params: Record<string, string> } | undefined {
  for (const route of ROUTES) {
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return undefined;
}

/** Whether the signed-in role may open the screen (and see it in the navigation). */
export function mayOpen(route: SignedInRoute, role: Role | undefined): boolean {
  return !route.roles || (role !== undefined && route.roles.includes(role));
}

/** The screens of the main navigation the role may open, in the table's order. */
export function navigationFor(role: Role | undefined): { to: string; label: string }[] {
  return ROUTES.flatMap((route) =>
    !route.access && route.nav && mayOpen(route, role) ? [{ to: route.path, label: route.nav }] : [],
  );
}
