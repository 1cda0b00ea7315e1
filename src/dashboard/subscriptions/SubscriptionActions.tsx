import { useState, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Subscription } from '../api/types';
import { Confirm } from '../components/dialogs';
import { Failure } from '../components/feedback';
import { keepNames } from './facts';

type Action = 'pause' | 'resume' | 'cancel_at_period_end' | 'keep' | 'cancel';

const ACTIONS: Record<Action, { label: string; title: string; question: string; done: string }> = {
  pause: {
    label: 'Pause',
    title: 'Pause this subscription?',
    question: 'No invoices are made while it is paused; resuming moves its billing dates on by the time paused.',
    done: 'Paused.',
  },
  resume: {
    label: 'Resume',
    title: 'Resume this subscription?',
    question: 'Billing continues from where it paused.',
    done: 'Resumed.',
  },
  cancel_at_period_end: {
    label: 'Cancel at period end',
    title: 'Cancel this subscription at the end of its period?',
    question:
      'It runs to the end of the period already paid, then ends; nothing more is billed. Until then it can be kept.',
    done: 'It cancels at the end of the period.',
  },
  keep: {
    label: 'Keep subscription',
    title: 'Keep this subscription?',
    question: 'The cancellation at the end of the period is withdrawn: billing goes on.',
    done: 'It goes on.',
  },
  cancel: {
    label: 'Cancel subscription',
    title: 'Cancel this subscription now?',
    question: 'It ends now and bills nothing more. This cannot be undone.',
    done: 'Canceled.',
  },
};

function actionsFor(subscription: Subscription): Action[] {
  const { status } = subscription;
  if (status === 'canceled' || status === 'expired') return [];
  const atPeriodEnd: Action[] = subscription.cancel_at_period_end ? ['keep'] : ['cancel_at_period_end'];
  if (status === 'paused') return ['resume', 'cancel'];
  // The API pauses an active subscription only (a trialing or scheduled one answers 409).
  if (status === 'active' || status === 'past_due') return ['pause', ...atPeriodEnd, 'cancel'];
  return [...atPeriodEnd, 'cancel'];
}

function perform(id: string, action: Action): Promise<Subscription> {
  const path = { params: { path: { id } } };
  switch (action) {
    case 'cancel':
      return api.DELETE('/subscriptions/{id}', path);
    case 'cancel_at_period_end':
    case 'keep':
      return api.PATCH('/subscriptions/{id}', {
        ...path,
        body: { cancel_at_period_end: action === 'cancel_at_period_end' },
      });
    case 'pause':
      return api.POST('/subscriptions/{id}/pause', { ...path, body: {} });
    case 'resume':
      return api.POST('/subscriptions/{id}/resume', { ...path, body: {} });
  }
}

/** Pause, resume, cancel (now or at the period's end) and keep, each asking first; `children` follow the buttons. */
export function SubscriptionActions({
  subscription,
  onStart,
  onDone,
  children,
}: {
  subscription: Subscription;
  /** An action is asked for: what the last one said goes. */
  onStart: () => void;
  onDone: (notice: string) => void;
  children: ReactNode;
}) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState<Action>();
  const act = useMutation({
    mutationFn: (action: Action) => perform(subscription.id, action),
    onSuccess: (updated, action) => {
      queryClient.setQueryData(['subscription', subscription.id], (shown: Subscription | undefined) =>
        keepNames(shown, updated),
      );
      void queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
      void queryClient.invalidateQueries({ queryKey: ['customer', updated.customer, 'billing-report'] });
      onDone(ACTIONS[action].done);
    },
    onSettled: () => setAsking(undefined),
  });
  return (
    <>
      <div className="actions">
        {actionsFor(subscription).map((action) => (
          <button
            key={action}
            type="button"
            className={action === 'cancel' ? 'danger' : 'secondary'}
            onClick={() => (act.reset(), onStart(), setAsking(action))}
          >
            {ACTIONS[action].label}
          </button>
        ))}
        {children}
      </div>
      {act.isError && <Failure error={act.error} />}
      {asking && (
        <Confirm
          title={ACTIONS[asking].title}
          message={ACTIONS[asking].question}
          confirm={ACTIONS[asking].label}
          danger={asking === 'cancel'}
          action={act}
          onConfirm={() => act.mutate(asking)}
          onClose={() => setAsking(undefined)}
        />
      )}
    </>
  );
}
