import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { formatDateTime } from '../components/format';
import { Link } from '../router';
import { FormError, useFormAction } from './form-action';

/**
 * /forgot-password: asks for a reset link by email (docs/api.md "Dashboard sessions"). The answer is
 * the same whether the email has a user or not, and says so.
 */
export function ForgotPassword() {
  const [sentTo, setSentTo] = useState<string>();
  const { error, busy, run } = useFormAction();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email') ?? '');
    return run(async () => {
      await api.POST('/dashboard/api/password-resets', { body: { email } });
      setSentTo(email);
    });
  };

  return (
    <main className="login">
      <div className="card login-card">
        <h1>Reset your password</h1>
        {sentTo ? (
          <p role="status">
            If <strong>{sentTo}</strong> is the email of a dashboard user, a link to choose a new password is on its
            way. It works once, for an hour.
          </p>
        ) : (
          <form className="login-card invitation-form" onSubmit={(event) => void submit(event)}>
            <p>Enter the email you sign in with: we send a link to choose a new password.</p>
            <label>
              Email
              <input name="email" type="email" autoComplete="username" required autoFocus maxLength={254} />
            </label>
            <FormError error={error} />
            <button type="submit" disabled={busy}>
              {busy ? 'Sending…' : 'Email me a link'}
            </button>
          </form>
        )}
        <p>
          <Link to="/login">Back to sign-in</Link>
        </p>
      </div>
    </main>
  );
}

/**
 * /reset-password/<token>: the emailed link's page. The new password is set once; every session of the
 * user ends, so they sign in again. An unknown, used or expired link says so.
 */
export function ResetPassword({ token }: { token: string }) {
  const path = { params: { path: { token } } };
  const preview = useQuery({
    queryKey: ['password-reset', token],
    queryFn: () => api.GET('/dashboard/api/password-resets/{token}', path),
    retry: false,
  });
  const [done, setDone] = useState(false);
  const { error, setError, busy, run } = useFormAction();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get('password') ?? '');
    if (password !== String(form.get('confirm') ?? '')) return setError('The two passwords differ.');
    return run(async () => {
      await api.POST('/dashboard/api/password-resets/{token}', { ...path, body: { password } });
      setDone(true);
    });
  };

  return (
    <main className="login">
      <div className="card login-card">
        {preview.isPending && <p role="status">Loading the link…</p>}
        {preview.isError && (
          <>
            <h1>This link cannot be used</h1>
            <p className="error" role="alert">
              {preview.error.message}
            </p>
            <Link to="/forgot-password">Ask for a new link</Link>
          </>
        )}
        {preview.data && done && (
          <>
            <h1>Password changed</h1>
            <p role="status">Every session of {preview.data.email} has ended. Sign in with the new password.</p>
            <Link to="/login">Sign in</Link>
          </>
        )}
        {preview.data && !done && (
          <form className="login-card invitation-form" onSubmit={(event) => void submit(event)}>
            <h1>Choose a new password</h1>
            <p>
              For {preview.data.email}. The link works until {formatDateTime(preview.data.expires_at)}.
            </p>
            <input type="email" name="email" autoComplete="username" value={preview.data.email} readOnly hidden />
            <label>
              New password (10 characters or more)
              <input name="password" type="password" autoComplete="new-password" required minLength={10} autoFocus />
            </label>
            <label>
              The same again
              <input name="confirm" type="password" autoComplete="new-password" required minLength={10} />
            </label>
            <FormError error={error} />
            <button type="submit" disabled={busy}>
              {busy ? 'Saving…' : 'Set the new password'}
            </button>
          </form>
        )}
      </div>
    </main>
  );
}
