import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../client/schema';
import { api } from '../api/client';
import type { Role } from '../api/types';
import { formatDate, formatDateTime } from '../components/format';
import { Confirm, Empty, Failure, Loading, StatusBadge, useIdempotencyKeys } from '../components/common';
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
    question: 'Requests made with it are refused from now on (within 30 seconds). This cannot be undone.',
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
  const submit = (event: FormEvent) => {
    event.preventDefault();
    act.reset();
    setNotice(undefined);
    create.mutate({ role: newRole });
  };

  return (
    <>
      <h2>API keys</h2>
      <p className="muted">
        Keys authenticate requests to the REST API (header <code>cc-api-key</code>) with their role on this account.
      </p>
      <form className="filters" onSubmit={submit} aria-label="New API key">
        <label>
          Role of the new key
          <select
            aria-label="Role of the new key"
            value={newRole}
            onChange={(event) => setNewRole(event.target.value as Role)}
          >
            {ROLES.filter((option) => RANK[option] <= RANK[role]).map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create key'}
        </button>
      </form>
      {create.isError && <Failure error={create.error} />}
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
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {asking && (
        <Confirm
          title={`${ACTIONS[asking.action].label} key ${asking.key.hint}?`}
          message={ACTIONS[asking.action].question}
          confirm={`${ACTIONS[asking.action].label} key`}
          danger={ACTIONS[asking.action].danger}
          busy={act.isPending}
          onConfirm={() => act.mutate(asking)}
          onClose={() => (setAsking(undefined), act.reset())}
        >
          {act.isError && <Failure error={act.error} />}
        </Confirm>
      )}
      {keys.isPending ? (
        <Loading />
      ) : keys.isError ? (
        <Failure error={keys.error} />
      ) : keys.data.length === 0 ? (
        <Empty>
          <p>No API keys yet.</p>
        </Empty>
      ) : (
        <div className="card table-card compact">
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Status</th>
                <th scope="col" className="hide-narrow">
                  Created
                </th>
                <th scope="col" className="hide-narrow">
                  Last used
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => (
                <tr key={key.id}>
                  <td>
                    <code>{key.hint}</code>
                    <div className="small">{key.role}</div>
                    <div className="muted small hide-narrow">
                      <code>{key.id}</code>
                    </div>
                  </td>
                  <td>
                    <StatusBadge status={key.status} />
                    {key.status === 'expiring' && (
                      <div className="muted small">until {formatDateTime(key.expires)}</div>
                    )}
                  </td>
                  <td className="hide-narrow">{formatDate(key.created)}</td>
                  <td className="hide-narrow">{key.last_used ? formatDateTime(key.last_used) : 'never'}</td>
                  <td>
                    {key.status !== 'revoked' && RANK[key.role] <= RANK[role] && (
                      <div className="row-actions">
                        {(['rotate', 'revoke'] as const).map((action) => (
                          <button
                            key={action}
                            type="button"
                            className={ACTIONS[action].danger ? 'danger' : 'secondary'}
                            aria-label={`${ACTIONS[action].label} key ${key.hint}`}
                            onClick={() => (
                              act.reset(),
                              create.reset(),
                              setNotice(undefined),
                              setAsking({ action, key })
                            )}
                          >
                            {ACTIONS[action].label}
                          </button>
                        ))}
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
