import type { Db, Tx } from '../db/prisma';
import { ApiError, badRequest, conflict, notFound } from '../http/errors';
import { keysetListPage, type Page } from '../http/pagination';
import { currentTime } from '../lib/clock-time';
import { columnValue } from '../lib/columns';
import { recordEvent } from '../lib/events';
import { newId } from '../lib/ids';
import { toUnixSeconds } from '../lib/time';
import {
  countMeters,
  findMeter,
  findMeterByEventName,
  insertMeter,
  lockMeter,
  readMeterPage,
  readMeterPosition,
  readMetersAfter,
  updateMeterRow,
  type Meter,
} from './meter.records';
import {
  METER_AGGREGATIONS,
  METER_STATUSES,
  type CreateMeterInput,
  type ListMetersQuery,
  type MeterObject,
  type UpdateMeterInput,
} from './meter.schemas';
import { hasUsageEvents, type MeterDefinition } from './usage-event.records';

export function toMeterObject(meter: Meter): MeterObject {
  return {
    id: meter.id,
    object: 'billing.meter',
    name: meter.name,
    event_name: meter.eventName,
    aggregation: columnValue(METER_AGGREGATIONS, meter.aggregation, 'meters.aggregation'),
    value_property: meter.valueProperty,
    status: columnValue(METER_STATUSES, meter.status, 'meters.status'),
    created: toUnixSeconds(meter.createdAt),
    updated: toUnixSeconds(meter.updatedAt),
  };
}

/** How the meter adds up its events, as the aggregation reads it. */
export function meterDefinition(meter: Meter): MeterDefinition {
  return {
    eventName: meter.eventName,
    aggregation: columnValue(METER_AGGREGATIONS, meter.aggregation, 'meters.aggregation'),
    valueProperty: meter.valueProperty,
  };
}

/** The account's meter, or 404 naming `param` (another account's too: no existence leak). */
export async function meterOfAccount(db: Db, accountId: string, id: string, param = 'id'): Promise<Meter> {
  const meter = await findMeter(db, accountId, id);
  if (!meter) throw notFound('meter', id, param);
  return meter;
}

/**
 * The account's meter a metered price names, active: 404 naming `param` for an unknown or another account's,
 * 400 meter_inactive for a deactivated one (no new usage would reach the price).
 */
export async function assertActiveMeter(db: Db | Tx, accountId: string, id: string, param: string): Promise<void> {
  const meter = await findMeter(db, accountId, id);
  if (!meter) throw notFound('meter', id, param);
  if (meter.status !== 'active')
    throw badRequest(`Meter ${id} is inactive; reactivate it before pricing its usage.`, param, 'meter_inactive');
}

/** POST /meters (billing.meter.created): one meter per event name in the account, 409 naming event_name otherwise. */
export async function createMeter(prisma: Db, accountId: string, input: CreateMeterInput): Promise<MeterObject> {
  return prisma.$transaction(async (tx) => {
    if (await findMeterByEventName(tx, accountId, input.event_name))
      throw new ApiError(
        'conflict',
        'meter_event_name_taken',
        `A meter of the account already counts the events named ${input.event_name}.`,
        'event_name',
      );
    const meter = await insertMeter(tx, {
      id: newId('meter'),
      accountId,
      name: input.name,
      eventName: input.event_name,
      aggregation: input.aggregation,
      valueProperty: input.value_property ?? null,
      createdAt: currentTime(),
    });
    const object = toMeterObject(meter);
    await recordEvent(tx, accountId, 'billing.meter.created', object);
    return object;
  });
}

export async function getMeter(prisma: Db, accountId: string, id: string): Promise<MeterObject> {
  return toMeterObject(await meterOfAccount(prisma, accountId, id));
}

/** GET /meters: the account's meters, newest first, at an offset or after/before a cursor. */
export function listMeters(prisma: Db, accountId: string, query: ListMetersQuery): Promise<Page<MeterObject>> {
  const filter = { status: query.status };
  return keysetListPage(query, {
    kind: 'meter',
    find: (id) => readMeterPosition(prisma, accountId, id),
    after: (at, forward, take) => readMetersAfter(prisma, accountId, filter, { at, forward, take: take + 1 }),
    page: (take, skip) => readMeterPage(prisma, accountId, filter, { take, skip }),
    count: () => countMeters(prisma, accountId, filter),
    objects: (rows) => rows.map(toMeterObject),
  });
}

/**
 * POST /meters/{id} (billing.meter.updated): the name any time; how it aggregates only while no usage event
 * names it (409 meter_has_events naming aggregation), so a total already reported or billed never changes
 * meaning. The meter is locked, and the events are looked for under the lock.
 */
export async function updateMeter(
  prisma: Db,
  accountId: string,
  id: string,
  input: UpdateMeterInput,
): Promise<MeterObject> {
  return prisma.$transaction(async (tx) => {
    const meter = await lockMeter(tx, accountId, id);
    if (!meter) throw notFound('meter', id);
    const data: Parameters<typeof updateMeterRow>[2] = { updatedAt: currentTime() };
    if (input.name !== undefined) data.name = input.name;
    if (input.aggregation !== undefined) {
      const valueProperty = input.value_property ?? null;
      const changes = input.aggregation !== meter.aggregation || valueProperty !== meter.valueProperty;
      if (changes && (await hasUsageEvents(tx, accountId, meter.eventName)))
        throw new ApiError(
          'conflict',
          'meter_has_events',
          `Meter ${id} has usage events; how it aggregates cannot change (create another meter for another event name).`,
          'aggregation',
        );
      data.aggregation = input.aggregation;
      data.valueProperty = valueProperty;
    }
    const object = toMeterObject(await updateMeterRow(tx, meter.id, data));
    await recordEvent(tx, accountId, 'billing.meter.updated', object);
    return object;
  });
}

/**
 * POST /meters/{id}/deactivate and /reactivate: an inactive meter refuses new usage events (its prices and
 * the usage already sent still bill). Doing it twice is 409, as Stripe's.
 */
export async function setMeterStatus(
  prisma: Db,
  accountId: string,
  id: string,
  status: 'active' | 'inactive',
): Promise<MeterObject> {
  return prisma.$transaction(async (tx) => {
    const meter = await lockMeter(tx, accountId, id);
    if (!meter) throw notFound('meter', id);
    if (meter.status === status) throw conflict(`Meter ${id} is already ${status}.`, `meter_${status}`);
    const object = toMeterObject(await updateMeterRow(tx, meter.id, { status, updatedAt: currentTime() }));
    await recordEvent(
      tx,
      accountId,
      status === 'active' ? 'billing.meter.reactivated' : 'billing.meter.deactivated',
      object,
    );
    return object;
  });
}
