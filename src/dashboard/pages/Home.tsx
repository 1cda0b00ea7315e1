import type { Session } from '../api';
import { Link } from '../router';

export function Home({ session }: { session: Session }) {
  return (
    <>
      <h1>Welcome, {session.user.name}</h1>
      <p className="muted">
        {session.account?.name} · your role: {session.account?.role}
      </p>
      <div className="tiles">
        <Link className="card tile" to="/customers">
          <h2>Customers</h2>
          <p>Find a customer, their payment methods, subscriptions and invoices.</p>
        </Link>
        <Link className="card tile" to="/subscriptions">
          <h2>Subscriptions</h2>
          <p>Subscriptions by status; pause, resume or cancel one.</p>
        </Link>
      </div>
    </>
  );
}
