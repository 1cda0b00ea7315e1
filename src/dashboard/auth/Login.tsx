import { type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { FormError, useFormAction } from './form-action';
import { SESSION_KEY } from '../api/session';
import { Link } from '../router';

export function Login() {
  const queryClient = useQueryClient();
  const { error, busy, run } = useFormAction();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    return run(async () => {
      const session = await api.POST('/dashboard/api/session', {
        body: { email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') },
      });
      queryClient.setQueryData(SESSION_KEY, session);
    });
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
        <FormError error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p>
          <Link to="/forgot-password">Forgot password?</Link>
        </p>
      </form>
    </main>
  );
}
