import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure, type Session } from '../api';
import { SESSION_KEY } from '../session';

export function Login() {
  const queryClient = useQueryClient();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      const session = await api<Session>('POST', '/dashboard/api/session', {
        email: String(form.get('email') ?? ''),
        password: String(form.get('password') ?? ''),
      });
      queryClient.setQueryData(SESSION_KEY, session);
    } catch (failure) {
      setError(failure instanceof ApiFailure ? failure.message : 'The service could not be reached. Try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="login">
      <form className="card login-card" onSubmit={(event) => void submit(event)}>
        <h1>Sign in to Billing</h1>
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required autoFocus />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
