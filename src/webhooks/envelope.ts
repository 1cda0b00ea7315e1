import type { EventEnvelope } from '../lib/events';

/** The delivery body (spec Events, Envelope): the entity itself in `data`, no `data.object` nesting. */
export function envelopeOf(event: { id: string; type: string; createdAt: Date; data: unknown }): EventEnvelope {
  return { id: event.id, event: event.type, createdAt: event.createdAt.toISOString(), data: event.data };
}

/** A stored envelope back in the spec's key order (jsonb stores keys in its own order). */
export function envelopeFromStored(payload: unknown): EventEnvelope {
  const stored = payload as EventEnvelope;
  return { id: stored.id, event: stored.event, createdAt: stored.createdAt, data: stored.data };
}
