import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Invitation, Member, Role, Session } from '../api/types';
import { formatDateTime } from '../components/format';
import { SESSION_KEY } from '../api/session';
import { Failure } from '../components/common';
import { Confirm } from '../components/dialogs';
import { Table } from '../components/Table';
import { Field, Form, Options, SelectField } from '../components/form';
import { Outcome, ROLES } from './section-parts';

type Asking = { kind: 'role'; member: Member; role: Role } | { kind: 'remove'; member: Member };

export function TeamSection({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const superadmin = session.account?.role === 'superadmin';
  const members = useQuery({
    queryKey: ['members', session.account?.id],
    queryFn: () => api.GET('/dashboard/api/members'),
  });
  const [asking, setAsking] = useState<Asking>();
  const [notice, setNotice] = useState<string>();
  const change = useMutation({
    mutationFn: async (ask: Asking) => {
      const path = { params: { path: { id: ask.member.id } } };
      if (ask.kind === 'role') await api.PATCH('/dashboard/api/members/{id}', { ...path, body: { role: ask.role } });
      else await api.DELETE('/dashboard/api/members/{id}', path);
      return ask;
    },
    onSuccess: async (ask) => {
      setAsking(undefined);
      setNotice(
        ask.kind === 'role'
          ? `${ask.member.name} is now ${ask.role}.`
          : `${ask.member.name} was removed from the team.`,
      );
      await queryClient.invalidateQueries({ queryKey: ['members'] });
      // Changing one's own role changes what this dashboard may show.
      if (ask.member.id === session.user.id) await queryClient.invalidateQueries({ queryKey: SESSION_KEY });
    },
    // The refusal (the last superadmin) is shown under the table, the dialog closed.
    onError: () => setAsking(undefined),
  });

  return (
    <section className="card settings-section" aria-labelledby="team-heading">
      <h2 id="team-heading">Team</h2>
      <Table
        query={members}
        rows={members.data?.data}
        rowKey={(member) => member.id}
        frame="inset"
        columns={[
          {
            header: 'Name',
            cell: (member) => (
              <>
                {member.name}
                {member.id === session.user.id && <span className="muted"> (you)</span>}
                {member.disabled && <span className="badge badge-disabled">disabled</span>}
                <div className="muted small member-email-narrow">{member.email}</div>
              </>
            ),
          },
          { header: 'Email', cell: (member) => member.email, className: 'truncate', wide: true },
          {
            header: 'Role',
            cell: (member) =>
              superadmin ? (
                <select
                  aria-label={`Role of ${member.name}`}
                  value={member.role}
                  onChange={(event) => {
                    change.reset();
                    setNotice(undefined);
                    setAsking({ kind: 'role', member, role: event.target.value as Role });
                  }}
                >
                  <Options values={ROLES} />
                </select>
              ) : (
                <span className="capitalize">{member.role}</span>
              ),
          },
          superadmin && {
            header: 'Actions',
            cell: (member) => (
              <button
                type="button"
                className="danger"
                aria-label={`Remove ${member.name}`}
                onClick={() => (change.reset(), setNotice(undefined), setAsking({ kind: 'remove', member }))}
              >
                Remove
              </button>
            ),
          },
        ]}
      />
      <Outcome notice={notice} error={change.error} />
      {asking && (
        <Confirm
          title={
            asking.kind === 'role'
              ? `Make ${asking.member.name} ${asking.role}?`
              : `Remove ${asking.member.name} from the team?`
          }
          message={
            asking.kind === 'role'
              ? `${asking.member.email} gets what a ${asking.role} may do, from their next click.`
              : `${asking.member.email} loses access to this account at once; their user stays for other accounts.`
          }
          confirm={asking.kind === 'role' ? 'Change role' : 'Remove member'}
          danger={asking.kind === 'remove'}
          action={{ isPending: change.isPending }}
          onConfirm={() => change.mutate(asking)}
          onClose={() => setAsking(undefined)}
        />
      )}
      {superadmin && <Invitations accountId={session.account?.id} />}
    </section>
  );
}

function Invitations({ accountId }: { accountId: string | undefined }) {
  const queryClient = useQueryClient();
  const pending = useQuery({
    queryKey: ['invitations', accountId],
    queryFn: () => api.GET('/dashboard/api/invitations'),
  });
  const [created, setCreated] = useState<Invitation>();
  const invite = useMutation({
    mutationFn: (input: { email: string; role: Role }) => api.POST('/dashboard/api/invitations', { body: input }),
    onSuccess: async (invitation) => {
      setCreated(invitation);
      await queryClient.invalidateQueries({ queryKey: ['invitations'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.DELETE('/dashboard/api/invitations/{id}', { params: { path: { id } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['invitations'] }),
  });
  const submit = (element: HTMLFormElement) => {
    const form = new FormData(element);
    setCreated(undefined);
    invite.mutate(
      // The role is one of the select's options, ROLES.
      { email: String(form.get('email') ?? ''), role: String(form.get('role')) as Role },
      { onSuccess: () => element.reset() },
    );
  };

  return (
    <>
      <h3>Invite someone</h3>
      <Form layout="inline" onSubmit={submit} action={invite} submit="Invite" busyLabel="Inviting…">
        <Field label="Email" name="email" type="email" required />
        <SelectField label="Invite as" name="role" defaultValue="standard">
          <Options values={ROLES} />
        </SelectField>
      </Form>
      {created?.url && (
        <div className="invite-link" role="status">
          <p>
            {created.emailed_at !== null
              ? `Emailed to ${created.email}; you may also send them this link.`
              : `Not emailed: send this link to ${created.email}.`}{' '}
            It works once, until {formatDateTime(created.expires_at)}, and is not shown again:
          </p>
          <input
            readOnly
            aria-label={`Invitation link for ${created.email}`}
            value={created.url}
            onFocus={(event) => event.currentTarget.select()}
          />
        </div>
      )}
      <h3>Pending invitations</h3>
      <Table
        query={pending}
        rows={pending.data?.data}
        rowKey={(invitation) => invitation.id}
        frame="inset"
        quietEmpty
        empty="No invitation is waiting."
        columns={[
          { header: 'Email', cell: (invitation) => invitation.email, className: 'truncate' },
          { header: 'Role', cell: (invitation) => invitation.role, className: 'capitalize' },
          { header: 'Expires', cell: (invitation) => formatDateTime(invitation.expires_at), wide: true },
          {
            header: 'Actions',
            cell: (invitation) => (
              <button
                type="button"
                className="secondary"
                aria-label={`Revoke the invitation of ${invitation.email}`}
                disabled={revoke.isPending}
                onClick={() => revoke.mutate(invitation.id)}
              >
                Revoke
              </button>
            ),
          },
        ]}
      />
      {revoke.isError && <Failure error={revoke.error} />}
    </>
  );
}
