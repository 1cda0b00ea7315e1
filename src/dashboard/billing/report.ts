import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';

/**
 * The customer's billing report (GET /customers/{id}/billing-report, what `npm run support -- customer` prints),
 * shared by the screens that explain why a customer was charged or not.
 */
export function useBillingReport(customerId: string) {
  return useQuery({
    queryKey: ['customer', customerId, 'billing-report'],
    queryFn: () =>
      api.GET('/customers/{externalKey}/billing-report', { params: { path: { externalKey: customerId } } }),
  });
}

/** The report's ISO-8601 times as the API's other times, Unix seconds (null stays null). */
export const secondsOf = (iso: string | null) => (iso ? Date.parse(iso) / 1000 : null);
