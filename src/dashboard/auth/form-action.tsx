import { useState } from 'react';
import { ApiFailure } from '../api/client';

/**
 * A form's action on the signed-out pages (sign-in, forgot and reset password): busy while it runs,
 * and its failure as the words to show (the API's message, or that the service was not reached).
 */
export function useFormAction() {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (failure) {
      setError(failure instanceof ApiFailure ? failure.message : 'The service could not be reached. Try again.');
    } finally {
      setBusy(false);
    }
  };
  return { error, setError, busy, run };
}

export function FormError({ error }: { error: string | undefined }) {
  return error ? (
    <p className="error" role="alert">
      {error}
    </p>
  ) : null;
}
