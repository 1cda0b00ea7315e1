import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure } from '../api/client';
import { formatDateTime, setTimeZone } from '../components/format';
import { navigate } from '../router';
import { SESSION_KEY } from '../api/session';

/**
 * /invitations/<token>: the invited person sets a name and password (or, with a user already, gives
 * their password) and lands signed in on the account (docs/api.md "Dashboard team"). Shown signed in
 * or not; an expired, used or unknown link says so.
 */
export function AcceptInvitation({ token }: { token: string }) {
  const queryClient = useQueryClient();
  const preview = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => api.GET('/dashboard/api/join/{token}', { params: { path: { token } } }),
    retry: false,
  });
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // No session yet: the link's expiry is shown in the zone of the account that invites.
  if (preview.data) setTimeZone(preview.data.time_zone);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      const session = await api.POST('/dashboard/api/join/{token}', {
        params: { path: { token } },
        body: {
          ...(preview.data?.existing_user ? {} : { name: String(form.get('name') ?? '') }),
          password: String(form.get('password') ?? ''),
        },
      });
      // Whatever was cached belonged to whoever was signed in before.
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
      queryClient.setQueryData(SESSION_KEY, session);
      navigate('/', { replace: true });
    } catch (failure) {
      setError(failure instanceof ApiFailure ? failure.message : 'The service could not be reached. Try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="login">
      <div className="card login-card">
        {preview.isPending && <p role="status">Loading the invitation…</p>}
        {preview.isError && (
          <>
            <h1>This invitation cannot be used</h1>
            <p className="error" role="alert">
              {preview.error.message}
            </p>
            <a href="/dashboard/login">Go to sign-in</a>
          </>
        )}
        {preview.data && (
          <form className="login-card invitation-form" onSubmit={(event) => void submit(event)}>
            <h1>Join {preview.data.account_name}</h1>
            <p>
              You are invited as <strong>{preview.data.role}</strong> with {preview.data.email}. The link works until{' '}
              {formatDateTime(preview.data.expires_at)}.
            </p>
            <input type="email" name="email" autoComplete="username" value={preview.data.email} readOnly hidden />
            {preview.data.existing_user ? (
              <label>
                Your password
                <input name="password" type="password" autoComplete="current-password" required />
              </label>
            ) : (
              <>
                <label>
                  Your name
                  <input name="name" autoComplete="name" required maxLength={200} />
                </label>
                <label>
                  Choose a password (10 characters or more)
                  <input name="password" type="password" autoComplete="new-password" required minLength={10} />
                </label>
              </>
            )}
            {error && (
              <p className="error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" disabled={busy}>
              {busy ? 'Joining…' : preview.data.existing_user ? 'Sign in and join' : 'Join'}
            </button>
          </form>
        )}
      </div>
    </main>
  );
}
