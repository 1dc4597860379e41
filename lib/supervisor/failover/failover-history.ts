import 'server-only';
import { appendEvent, clearEvents } from '../../../db/events';
import { getPool } from '../../../db/pool';
import { FAILOVER_LAB, failoverEvent } from '../../model/failover-events';
import type { FailoverStep } from '../../model/failover-steps';

/*
 * The failover lab's history: its steps as the events of the lab `failover`, in the app's own
 * database (never on the pair whose failover they record), so that the live feed, the timeline,
 * replay, export and the checker read them as every other lab's.
 */

/** Records one step; the live feed's watchers see it when it commits. */
export async function recordFailoverStep(step: FailoverStep): Promise<void> {
  await appendEvent(getPool(), failoverEvent(step));
}

/** A new pair starts a new story: the last one's events go, and the live feeds are told (a reset). */
export async function clearFailoverHistory(): Promise<void> {
  await clearEvents(FAILOVER_LAB);
}
