import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../client/schema';
import { api } from '../api/client';
import { formatDate } from '../components/format';
import { StatusBadge } from '../components/badges';
import { Confirm } from '../components/dialogs';
import { Empty, Failure, Loaded, Notice } from '../components/feedback';
import { Field, Form } from '../components/form';
import { SecretOnce } from './SecretOnce';

type Destination = components['schemas']['WebhookDestination'];
type CreatedDestination = components['schemas']['WebhookDestinationCreated'];

/** The account's destinations' query key, shared by the delivery logs (their filter and column). */
export const DESTINATIONS = ['webhook-destinations'];

type Action = 'edit' | 'disable' | 'enable' | 'roll' | 'delete';
const ACTIONS: Record<Action, { label: string; question: string; danger: boolean }> = {
  edit: { label: 'Edit URL', question: 'Deliveries from now on, retries included, go to the new URL.', danger: false },
  disable: {
    label: 'Disable',
    question: 'It receives no new events, and its pending retries end as failures.',
    danger: true,
  },
  enable: { label: 'Enable', question: 'Events dispatched from now on go to it.', danger: false },
  roll: {
    label: 'Roll secret',
    question:
      'A new signing secret is issued and shown once. The old one keeps signing beside it for 24 hours, time to update the receiver.',
    danger: false,
  },
  delete: {
    label: 'Delete',
    question: 'It receives no new events and its pending retries end as failures; its delivery log stays.',
    danger: true,
  },
};

/** Webhook destinations (docs/api.md, webhooks): every event of the account goes to each enabled one. */
export function WebhookDestinations() {
  const queryClient = useQueryClient();
  const destinations = useQuery({
    queryKey: DESTINATIONS,
    queryFn: () => api.GET('/webhook/destination'),
  });
  const [url, setUrl] = useState('');
  const [editUrl, setEditUrl] = useState('');
  const [asking, setAsking] = useState<{ action: Action; destination: Destination }>();
  const [notice, setNotice] = useState<string>();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: DESTINATIONS });
  // Signing secrets live in these answers only; gcTime 0 drops them once "Done" resets the mutation.
  const create = useMutation({
    mutationFn: (body: { url: string }) => api.POST('/webhook/destination', { body }),
    onSuccess: () => (setUrl(''), refresh()),
    gcTime: 0,
  });
  const act = useMutation({
    mutationFn: ({
      action,
      destination,
    }: {
      action: Action;
      destination: Destination;
    }): Promise<Destination | CreatedDestination | { id: string }> => {
      const path = { params: { path: { id: destination.id } } };
      switch (action) {
        case 'edit':
          return api.PUT('/webhook/destination/{id}', { ...path, body: { url: editUrl.trim() } });
        case 'disable':
          return api.PATCH('/webhook/destination/{id}/disable', path);
        case 'enable':
          return api.PATCH('/webhook/destination/{id}/enable', path);
        case 'roll':
          return api.POST('/webhook/destination/{id}/roll-secret', path);
        case 'delete':
          return api.DELETE('/webhook/destination/{id}', path);
      }
    },
    onSuccess: (answer, { action, destination }) => {
      setAsking(undefined);
      const done = { edit: 'URL changed', disable: 'Disabled', enable: 'Enabled', roll: undefined, delete: 'Deleted' };
      // An edit names the URL the destination has now.
      const url = 'url' in answer ? answer.url : destination.url;
      setNotice(done[action] && `${done[action]}: ${url}`);
      refresh();
    },
    gcTime: 0,
  });
  const rolled = act.data && 'secret' in act.data ? act.data : undefined;
  const start = (action: Action, destination: Destination) => {
    act.reset();
    create.reset();
    setNotice(undefined);
    setEditUrl(destination.url);
    if (action === 'enable') act.mutate({ action, destination });
    else setAsking({ action, destination });
  };

  return (
    <>
      <h2>Webhook destinations</h2>
      <p className="muted">Every event of the account is POSTed, signed, to each enabled destination.</p>
      <Form
        layout="inline"
        label="New webhook destination"
        submit="Add destination"
        busyLabel="Adding…"
        action={create}
        onSubmit={() => {
          act.reset();
          setNotice(undefined);
          create.mutate({ url: url.trim() });
        }}
      >
        <Field
          label="Endpoint URL"
          className="grow"
          type="url"
          required
          value={url}
          onValue={setUrl}
          placeholder="https://example.com/webhooks"
        />
      </Form>
      {create.data && (
        <SecretOnce title="Signing secret" secret={create.data.secret} onDone={() => create.reset()}>
          <p>
            Deliveries to <code>{create.data.url}</code> are signed with it.
          </p>
        </SecretOnce>
      )}
      {rolled && (
        <SecretOnce title="New signing secret" secret={rolled.secret} onDone={() => act.reset()}>
          <p>
            For <code>{rolled.url}</code>; the previous secret keeps signing beside it for 24 hours.
          </p>
        </SecretOnce>
      )}
      <Notice text={notice} />
      {act.isError && !asking && <Failure error={act.error} />}
      {asking && (
        <DestinationQuestion
          asking={asking}
          editUrl={editUrl}
          onEditUrl={setEditUrl}
          action={act}
          onConfirm={() => act.mutate(asking)}
          onClose={() => (setAsking(undefined), act.reset())}
        />
      )}
      <Loaded query={destinations}>{(list) => <DestinationList destinations={list} onAction={start} />}</Loaded>
    </>
  );
}

/** The question before an action on a destination: its URL, or the field of the new one for an edit. */
function DestinationQuestion(props: {
  asking: { action: Action; destination: Destination };
  editUrl: string;
  onEditUrl: (url: string) => void;
  action: { isPending: boolean; error: unknown };
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { action, destination } = props.asking;
  return (
    <Confirm
      title={`${ACTIONS[action].label}?`}
      message={ACTIONS[action].question}
      confirm={ACTIONS[action].label}
      danger={ACTIONS[action].danger}
      action={props.action}
      onConfirm={props.onConfirm}
      onClose={props.onClose}
    >
      {action === 'edit' ? (
        <label className="field">
          URL
          <input type="url" value={props.editUrl} onChange={(event) => props.onEditUrl(event.target.value)} />
        </label>
      ) : (
        <p>
          <code className="break">{destination.url}</code>
        </p>
      )}
    </Confirm>
  );
}

/** Each destination with its URL, state and the actions on it (enable or disable as it is now). */
function DestinationList(props: {
  destinations: Destination[];
  onAction: (action: Action, destination: Destination) => void;
}) {
  if (props.destinations.length === 0)
    return (
      <Empty>
        <p>No webhook destinations yet.</p>
      </Empty>
    );
  return (
    <ul className="card list destinations">
      {props.destinations.map((destination) => (
        <li key={destination.id}>
          <div className="destination-head">
            <code className="break">{destination.url}</code>
            <StatusBadge status={destination.status} />
          </div>
          <div className="muted small">
            <code>{destination.id}</code>, added {formatDate(destination.created)}
          </div>
          <div className="row-actions" role="group" aria-label={`Actions for ${destination.url}`}>
            {(['edit', destination.active ? 'disable' : 'enable', 'roll', 'delete'] as const).map((action) => (
              <button
                key={action}
                type="button"
                className={ACTIONS[action].danger ? 'danger' : 'secondary'}
                onClick={() => props.onAction(action, destination)}
              >
                {ACTIONS[action].label}
              </button>
            ))}
          </div>
        </li>
      ))}
    </ul>
  );
}
