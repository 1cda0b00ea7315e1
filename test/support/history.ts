import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { EncryptionCodec } from '../../src/temporal/payload-codec';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payload = temporal.api.common.v1.IPayload;

/** A payload of the history, as the Web UI shows it through the codec endpoint (payloads are encrypted, src/temporal/payload-codec.ts). */
export async function decodePayload(payload: Payload | null | undefined): Promise<unknown> {
  if (!payload) return undefined;
  const [plain] = await new EncryptionCodec().decode([payload as never]);
  return defaultPayloadConverter.fromPayload(plain!);
}
const decode = decodePayload;

/** What a workflow's history shows in the Web UI's timeline: the summaries of its timers and activities, in order. */
export interface HistoryView {
  timers: string[];
  /** Activities and local activities (`local`: recorded as a marker in the workflow task that ran it). */
  activities: {
    type: string;
    summary: string | undefined;
    /** Its result; for a failed activity, the detail of its failure (a failed charge's answer). */
    result: unknown;
    /** Set when the activity failed (drawn failed in the Web UI): the failure's type and message. */
    failure?: { type: string; message: string };
    local: boolean;
  }[];
  /** The workflow's input (its first argument), as the Web UI shows it. */
  input?: unknown;
  /** The start delay of its first workflow task (ms), when it was started with one. */
  startDelayMs?: number;
  /** Workflow tasks completed so far. */
  workflowTasks: number;
}

/** Reads a workflow's history (the run the handle names, else the latest) as the Web UI shows it. */
export async function historyView(handle: WorkflowHandle): Promise<HistoryView> {
  const { events } = await handle.fetchHistory();
  const list: HistoryEvent[] = events ?? [];
  const scheduled = new Map<string, HistoryView['activities'][number]>();
  const view: HistoryView = { timers: [], activities: [], workflowTasks: 0 };
  for (const event of list) {
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) view.input = await decode(started.input?.payloads?.[0]);
    const backoff = started?.firstWorkflowTaskBackoff;
    if (backoff) view.startDelayMs = Number(backoff.seconds ?? 0) * 1000 + Math.round((backoff.nanos ?? 0) / 1e6);
    if (event.workflowTaskCompletedEventAttributes) view.workflowTasks += 1;
    const summary = (await decode(event.userMetadata?.summary)) as string | undefined;
    if (event.timerStartedEventAttributes && summary) view.timers.push(summary);
    const activity = event.activityTaskScheduledEventAttributes;
    if (activity) {
      const entry = { type: activity.activityType?.name ?? '', summary, result: undefined as unknown, local: false };
      scheduled.set(String(event.eventId), entry);
      view.activities.push(entry);
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) {
      const entry = scheduled.get(String(completed.scheduledEventId));
      if (entry) entry.result = await decode(completed.result?.payloads?.[0]);
    }
    const failed = event.activityTaskFailedEventAttributes;
    if (failed) {
      const entry = scheduled.get(String(failed.scheduledEventId));
      if (entry) {
        entry.failure = {
          type: failed.failure?.applicationFailureInfo?.type ?? '',
          message: failed.failure?.message ?? '',
        };
        entry.result = await decode(failed.failure?.applicationFailureInfo?.details?.payloads?.[0]);
      }
    }
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const data = (await decode(marker.details?.data?.payloads?.[0])) as { activity_type?: string } | undefined;
      const { failure } = marker;
      view.activities.push({
        type: data?.activity_type ?? '',
        summary,
        result: failure
          ? await decode(failure.applicationFailureInfo?.details?.payloads?.[0])
          : await decode(marker.details?.result?.payloads?.[0]),
        // Recorded in the marker; the Web UI draws the marker as any other all the same.
        ...(failure
          ? { failure: { type: failure.applicationFailureInfo?.type ?? '', message: failure.message ?? '' } }
          : {}),
        local: true,
      });
    }
  }
  return view;
}
