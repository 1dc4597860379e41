import 'server-only';
import { appendEvent, clearEvents, eventIdRange, listEvents } from '../../../db/events';
import { getPool, withTransaction } from '../../../db/pool';
import { forgetShownStep } from '../../../db/shown-step';
import { FAILOVER_LAB, failoverEvent } from '../../model/failover/failover-events';
import type { FailoverStep } from '../../model/failover/failover-steps';

/*
 * The failover lab's history: its steps as the events of the lab `failover`, in the app's own
 * database (never on the pair whose failover they record), so that the live feed, the timeline,
 * replay, export and the checker read them as every other lab's.
 */

/** Records one step; the live feed's watchers see it when it commits. */
export async function recordFailoverStep(step: FailoverStep): Promise<void> {
  await appendEvent(getPool(), failoverEvent(step));
}

/**
 * A new pair starts a new story: the last one's events go, and the live feeds are told (a reset);
 * the step the trainer showed of it goes with them (the watchers' pages show the new story's).
 */
export async function clearFailoverHistory(): Promise<void> {
  await withTransaction(async (client) => {
    await forgetShownStep(FAILOVER_LAB, client);
    await clearEvents(FAILOVER_LAB, client);
  });
}

/**
 * Whether the lab's last story is still open: it has events and does not end with `pair_stopped`
 * (its pair ran on a server that stopped or died meanwhile, or runs now).
 */
export async function failoverStoryOpen(): Promise<boolean> {
  const { last } = await eventIdRange(FAILOVER_LAB);
  if (last === null) return false;
  const [event] = await listEvents({ lab: FAILOVER_LAB, afterId: last - 1, limit: 1 });
  return event !== undefined && event.kind !== 'pair_stopped';
}
