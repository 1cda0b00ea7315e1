import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { Failure, Loading } from '../components/common';
import { CopyId } from '../components/CopyId';
import { Fact } from '../components/facts';
import { Field, Form } from '../components/form';
import { formatDateTime } from '../components/format';

interface StripeConnection {
  secret_key: string;
  webhook_secret: string;
  publishable_key?: string;
}

/**
 * The account's card processor (docs/api.md, "Payment processors"): what it is, its mode, the last characters of
 * its secrets (never the secrets: the API does not answer them), the webhook URL to give Stripe, and the form that
 * connects Stripe or changes its keys. GET and PUT /settings/gateway are a developer's or superadmin's only:
 * Settings shows the section to them alone, as Dunning and Proration.
 */
export function PaymentProcessorSection() {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: ['gateway-settings'], queryFn: () => api.GET('/settings/gateway') });
  const [notice, setNotice] = useState<string>();
  const save = useMutation({
    mutationFn: (input: StripeConnection) => api.PUT('/settings/gateway', { body: { processor: 'stripe', ...input } }),
    onSuccess: (saved) => {
      queryClient.setQueryData(['gateway-settings'], saved);
      setNotice(
        `Saved. Payments go through Stripe in ${saved.livemode ? 'live' : 'test'} mode from now on; give Stripe the webhook URL above.`,
      );
    },
  });
  const submit = (element: HTMLFormElement) => {
    const form = new FormData(element);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    setNotice(undefined);
    save.mutate({
      secret_key: text('secret_key'),
      webhook_secret: text('webhook_secret'),
      publishable_key: text('publishable_key') || undefined,
    });
  };
  const data = settings.data;
  const connected = data?.processor === 'stripe';
  return (
    <section className="card settings-section" aria-labelledby="processor-heading">
      <h2 id="processor-heading">Payment processor</h2>
      <p className="muted">
        Where this account&apos;s payments go. Until Stripe is connected they go through the simulated gateway and its
        test cards.
      </p>
      {settings.isPending && <Loading />}
      {settings.isError && <Failure error={settings.error} />}
      {data && (
        <dl className="facts">
          <Fact term="Processor">{connected ? 'Stripe' : 'Simulated gateway'}</Fact>
          <Fact term="Mode">{connected && (data.livemode ? 'Live' : 'Test')}</Fact>
          <Fact term="Secret key">{data.secret_key_last4 && `Ending ${data.secret_key_last4}`}</Fact>
          <Fact term="Webhook signing secret">
            {data.webhook_secret_last4 && `Ending ${data.webhook_secret_last4}`}
          </Fact>
          <Fact term="Publishable key">
            {connected && (data.publishable_key ?? 'None: the hosted pages take no new card')}
          </Fact>
          <Fact term="Webhook URL">{data.webhook_url && <CopyId id={data.webhook_url} />}</Fact>
          <Fact term="Updated">{data.updated !== null && formatDateTime(data.updated)}</Fact>
        </dl>
      )}
      {data && (
        <Form
          key={data.updated ?? 'never'}
          onSubmit={submit}
          action={save}
          label={connected ? 'Change the Stripe keys' : 'Connect Stripe'}
          submit={connected ? 'Save Stripe keys' : 'Connect Stripe'}
          busyLabel="Checking the key with Stripe…"
          notice={notice}
        >
          <h3>{connected ? 'Change the Stripe keys' : 'Connect Stripe'}</h3>
          <p className="muted">
            From the Stripe Dashboard&apos;s Developers page. The secrets are stored encrypted and never shown again,
            only their last 4 characters; the key is tried with Stripe before it is saved.
          </p>
          <Field
            label="Secret key (sk_test_… or sk_live_…)"
            name="secret_key"
            param="secret_key"
            type="password"
            required
          />
          <Field
            label="Webhook signing secret (whsec_…)"
            name="webhook_secret"
            param="webhook_secret"
            type="password"
            required
          />
          <Field
            label="Publishable key (pk_test_… or pk_live_…, for the hosted pages' card field)"
            name="publishable_key"
            param="publishable_key"
            defaultValue={data.publishable_key ?? ''}
          />
        </Form>
      )}
    </section>
  );
}
