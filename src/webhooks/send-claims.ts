import type { Db } from '../db/prisma';
import { claimSends, type DeliveryToSend } from './delivery-attempt.records';

/** Claims the send of attempt `attempt` of a delivery: what to send, or undefined when refused (delivery-attempt.records.ts). */
export type SendClaimer = (deliveryId: string, attempt: number) => Promise<DeliveryToSend | undefined>;

interface WaitingClaim {
  deliveryId: string;
  attempt: number;
  resolve: (claimed: DeliveryToSend | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Claims asked together go in one statement: those asked in the same turn of the event loop, and those
 * asked while a statement is in flight, in the next one. A claim waits at most for one statement
 * before its own (as it may for a pooled connection), and its send follows its statement at once: the
 * send's window (`sendingSince` to the record, docs/decisions.md §10) starts when the send does, not
 * while it waits its turn among the relay's 32 in flight. The relay's batch asks 32 at once at its start,
 * then one as each lane frees, together when they free together (docs/performance.md, "Webhook deliveries,
 * sixth pass").
 */
export function sendClaimsTogether(prisma: Db): SendClaimer {
  let waiting: WaitingClaim[] = [];
  let flushing = false;

  async function claimTogether(claims: WaitingClaim[]): Promise<void> {
    try {
      const claimed = await claimSends(
        prisma,
        claims.map((claim) => claim.deliveryId),
        claims[0]!.attempt,
      );
      const byId = new Map(claimed.map((delivery) => [delivery.id, delivery]));
      for (const claim of claims) {
        // The same attempt asked twice at once: one send, the other is refused (and waits for its record).
        claim.resolve(byId.get(claim.deliveryId));
        byId.delete(claim.deliveryId);
      }
    } catch (error) {
      for (const claim of claims) claim.reject(error);
    }
  }

  async function flush(): Promise<void> {
    while (waiting.length > 0) {
      const claims = waiting;
      waiting = [];
      const attempts = new Set(claims.map((claim) => claim.attempt));
      for (const attempt of attempts) await claimTogether(claims.filter((claim) => claim.attempt === attempt));
    }
    flushing = false;
  }

  return (deliveryId, attempt) =>
    new Promise<DeliveryToSend | undefined>((resolve, reject) => {
      waiting.push({ deliveryId, attempt, resolve, reject });
      if (flushing) return;
      flushing = true;
      queueMicrotask(() => void flush());
    });
}
