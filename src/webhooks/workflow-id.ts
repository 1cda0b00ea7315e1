/**
 * decisions.md §1: operators find a delivery in the Temporal Web UI by this id; it also makes a second
 * start a no-op. A resend (decisions.md §27) is a delivery of its own, numbered after the relay's.
 */
export function webhookWorkflowId(eventId: string, destinationId: string, resend = 0): string {
  return resend === 0 ? `webhook:${eventId}:${destinationId}` : `webhook:${eventId}:${destinationId}:resend-${resend}`;
}
