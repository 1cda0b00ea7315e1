import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../client/schema';
import { api } from '../api/client';
import type { Role } from '../api/types';
import { formatDate, formatDateTime } from '../components/format';
import { StatusBadge } from '../components/badges';
import { Confirm } from '../components/dialogs';
import { Notice, type QueryState } from '../components/feedback';
import { Form, Options, SelectField, useIdempotencyKeys } from '../components/form';
import { Table } from '../components/Table';
import { SecretOnce } from './SecretOnce';

type ApiKey = components['schemas']['ApiKey'];
type RotatedKey = components['schemas']['ApiKeyRotated'];

const RANK: Record<Role, number> = { standard: 0, developer: 1, superadmin: 2 };
const ROLES = Object.keys(RANK) as Role[];
const KEYS = ['api-keys'];

type Action = 'revoke' | 'rotate';
const ACTIONS: Record<Action, { label: string; question: string; danger: boolean }> = {
  revoke: {
    label: 'Revoke',
    question: 'Requests made with it are refused from now on. This cannot be undone.',
    danger: true,
  },
  rotate: {
    label: 'Rotate',
    question:
      'A new key of the same role is issued and shown once; this key keeps working for 24 hours, time to move clients to the new one.',
    danger: false,
  },
};

/** The account's API keys (docs/api.md "API keys"): a hint of each, never the key itself. */
export function ApiKeys({ role }: { role: Role }) {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: KEYS, queryFn: () => api.GET('/api-keys') });
  const [newRole, setNewRole] = useState<Role>('standard');
  const [asking, setAsking] = useState<{ action: Action; key: ApiKey }>();
  const [notice, setNotice] = useState<string>();
  // The secret lives in the mutation's answer only; gcTime 0 drops it from the cache once "Done" resets it.
  // A double click issues one key (the API answers the same key again for the same Idempotency-Key).
  const creationKeys = useIdempotencyKeys();
  const create = useMutation({
    mutationFn: (body: { role: Role }) =>
      api.POST('/api-keys', { body, params: { header: { 'Idempotency-Key': creationKeys.keyFor(body) } } }),
    onSuccess: () => {
      creationKeys.done();
      void queryClient.invalidateQueries({ queryKey: KEYS });
    },
    gcTime: 0,
  });
  const act = useMutation({
    mutationFn: ({ action, key }: { action: Action; key: ApiKey }): Promise<ApiKey | RotatedKey> =>
      action === 'revoke'
        ? api.POST('/api-keys/{id}/revoke', { params: { path: { id: key.id } } })
        : api.POST('/api-keys/{id}/rotate', { params: { path: { id: key.id } } }),
    onSuccess: (answer, { action, key }) => {
      setAsking(undefined);
      // The answer is the key as it is now (a rotation's, the old key): shown at once, the list read again.
      const changed = 'key' in answer ? answer.previous : answer;
      queryClient.setQueryData<ApiKey[]>(KEYS, (keys) =>
        keys?.map((item) => (item.id === changed.id ? changed : item)),
      );
      setNotice(action === 'revoke' ? `Key ${key.hint} revoked.` : undefined);
      void queryClient.invalidateQueries({ queryKey: KEYS });
    },
    gcTime: 0,
  });
  const rotated = act.data && 'key' in act.data ? act.data : undefined;

  return (
    <>
      <h2>API keys</h2>
      <p className="muted">
        Keys authenticate requests to the REST API (header <code>cc-api-key</code>) with their role on this account.
      </p>
      <Form
        layout="inline"
        label="New API key"
        submit="Create key"
        busyLabel="Creating…"
        action={create}
        onSubmit={() => {
          act.reset();
          setNotice(undefined);
          create.mutate({ role: newRole });
        }}
      >
        <SelectField label="Role of the new key" value={newRole} onValue={(value) => setNewRole(value as Role)}>
          <Options values={ROLES.filter((option) => RANK[option] <= RANK[role])} />
        </SelectField>
      </Form>
      {create.data && (
        <SecretOnce title={`New ${create.data.role} key`} secret={create.data.secret} onDone={() => create.reset()} />
      )}
      {rotated && (
        <SecretOnce title={`New ${rotated.key.role} key`} secret={rotated.key.secret} onDone={() => act.reset()}>
          <p>
            It replaces <code>{rotated.previous.hint}</code>, which works until{' '}
            {formatDateTime(rotated.previous.expires)}.
          </p>
        </SecretOnce>
      )}
      <Notice text={notice} />
      {asking && (
        <Confirm
          title={`${ACTIONS[asking.action].label} key ${asking.key.hint}?`}
          message={ACTIONS[asking.action].question}
          confirm={`${ACTIONS[asking.action].label} key`}
          danger={ACTIONS[asking.action].danger}
          action={act}
          onConfirm={() => act.mutate(asking)}
          onClose={() => (setAsking(undefined), act.reset())}
        ></Confirm>
      )}
      <KeyTable
        keys={keys}
        role={role}
        onAsk={(action, key) => {
          act.reset();
          create.reset();
          setNotice(undefined);
          setAsking({ action, key });
        }}
      />
    </>
  );
}

/** The keys, each with the actions the person's role may take on it (none on a key of a higher role). */
function KeyTable(props: { keys: QueryState<ApiKey[]>; role: Role; onAsk: (action: Action, key: ApiKey) => void }) {
  return (
    <Table
      query={props.keys}
      rows={props.keys.data}
      rowKey={(key) => key.id}
      frame="compact"
      empty="No API keys yet."
      columns={[
        {
          header: 'Key',
          cell: (key) => (
            <>
              <code>{key.hint}</code>
              <div className="small">{key.role}</div>
              <div className="muted small hide-narrow">
                <code>{key.id}</code>
              </div>
            </>
          ),
        },
        {
          header: 'Status',
          cell: (key) => <StatusBadge status={key.status} />,
          note: (key) => key.status === 'expiring' && `until ${formatDateTime(key.expires)}`,
        },
        { header: 'Created', cell: (key) => formatDate(key.created), wide: true },
        { header: 'Last used', cell: (key) => (key.last_used ? formatDateTime(key.last_used) : 'never'), wide: true },
        {
          header: 'Actions',
          headerHidden: true,
          cell: (key) =>
            key.status !== 'revoked' &&
            RANK[key.role] <= RANK[props.role] && (
              <div className="row-actions">
                {(['rotate', 'revoke'] as const).map((action) => (
                  <button
                    key={action}
                    type="button"
                    className={ACTIONS[action].danger ? 'danger' : 'secondary'}
                    aria-label={`${ACTIONS[action].label} key ${key.hint}`}
                    onClick={() => props.onAsk(action, key)}
                  >
                    {ACTIONS[action].label}
                  </button>
                ))}
              </div>
            ),
        },
      ]}
    />
  );
}
