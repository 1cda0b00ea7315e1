/** decisions.md §1: operators find a delivery in the Temporal Web UI by this id; it also makes a second start a no-op. */
export function webhookWorkflowId(eventId: string, destinationId: string): string {
  return `webhook:${eventId}:${destinationId}`;
}
