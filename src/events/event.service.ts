import type { Db } from '../db/prisma';
import { notFound } from '../http/errors';
import { keysetListPage, type Page } from '../http/pagination';
import {
  countEvents,
  eventListStatement,
  findEvent,
  readEventPosition,
  readEventRows,
  type EventFilter,
  type StoredEvent,
} from '../lib/event.records';
import { fromUnixSeconds, toUnixSeconds } from '../lib/time';
import type { EventObject, ListEventsQuery } from './event.schemas';

function toEventObject(row: StoredEvent): EventObject {
  return { id: row.id, object: 'event', type: row.type, created: toUnixSeconds(row.createdAt), data: row.data };
}

/**
 * The account's events, newest first, filtered (docs/api.md "Events"); another account's never. A page at an
 * offset, or after/before a cursor (docs/decisions.md §36), each a range of the filter's index.
 */
export async function listEvents(prisma: Db, accountId: string, query: ListEventsQuery): Promise<Page<EventObject>> {
  const at = (seconds: number | undefined) => (seconds === undefined ? undefined : fromUnixSeconds(seconds));
  const filter: EventFilter = {
    accountId,
    type: query.type,
    objectId: query.object,
    customerId: query.customer,
    created: {
      gt: at(query.created_gt),
      gte: at(query.created_gte),
      lt: at(query.created_lt),
      lte: at(query.created_lte),
    },
  };
  const rows = (window: Parameters<typeof eventListStatement>[1]) =>
    readEventRows(prisma, eventListStatement(filter, window));
  return keysetListPage(query, {
    kind: 'event',
    find: (id) => readEventPosition(prisma, accountId, id),
    after: (position, forward, take) => rows({ at: [position.createdAt, position.seq], forward, take: take + 1 }),
    page: (take, skip) => rows({ take, skip }),
    count: () => countEvents(prisma, filter),
    objects: (found) => found.map(toEventObject),
  });
}

/** One event of the account: 404 for an unknown id and for another account's. */
export async function getEvent(prisma: Db, accountId: string, id: string): Promise<EventObject> {
  const row = await findEvent(prisma, accountId, id);
  if (!row) throw notFound('event', id);
  return toEventObject(row);
}
