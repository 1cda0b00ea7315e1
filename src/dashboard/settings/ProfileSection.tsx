import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Session } from '../api/types';
import { Field, Form } from '../components/form';

export function ProfileSection({ session }: { session: Session }) {
  const [notice, setNotice] = useState<string>();
  const change = useMutation({
    mutationFn: (input: { current_password: string; new_password: string }) =>
      api.POST('/dashboard/api/session/password', { body: input }),
    onSuccess: () => setNotice('Password changed. Your other sessions were signed out.'),
  });
  const submit = (form: HTMLFormElement) => {
    const data = new FormData(form);
    setNotice(undefined);
    change.mutate(
      { current_password: String(data.get('current_password')), new_password: String(data.get('new_password')) },
      { onSuccess: () => form.reset() },
    );
  };
  return (
    <section className="card settings-section" aria-labelledby="profile-heading">
      <h2 id="profile-heading">Your profile</h2>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{session.user.name}</dd>
        <dt>Email</dt>
        <dd>{session.user.email}</dd>
        <dt>Role</dt>
        <dd className="capitalize">{session.account?.role}</dd>
      </dl>
      <h3>Change your password</h3>
      <Form onSubmit={submit} action={change} submit="Change password" busyLabel="Changing…" notice={notice}>
        <input type="text" name="username" autoComplete="username" value={session.user.email} readOnly hidden />
        <Field
          label="Current password"
          name="current_password"
          type="password"
          autoComplete="current-password"
          required
        />
        <Field
          label="New password (10 characters or more)"
          name="new_password"
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
        />
      </Form>
    </section>
  );
}
