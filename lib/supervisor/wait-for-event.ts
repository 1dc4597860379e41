import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import type { LabEvent } from '../model/events';
import type { LabInstance } from '../model/lab-instance';

/*
 * The one way a story waits for what its processes record: it reads the lab's events every 25 ms
 * until one matches (in id order, the first that does), for the scenarios of `npm run scenario`
 * (lib/scenario/) and the timed pause story (timed-pause.ts) alike. The match is given each poll's
 * events as read, once: nothing is converted per event.
 */

export const STEP_TIMEOUT_MS = 20_000;
const POLL_MS = 25;

/** Thrown by a wait whose signal aborted (someone stopped the story). */
export class WaitStopped extends Error {
  constructor() {
    super('stopped');
  }
}

export async function waitForLabEvent(
  lab: Pick<LabInstance, 'id'>,
  what: string,
  match: (event: LabEvent, events: readonly LabEvent[]) => boolean,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<LabEvent> {
  const deadline = Date.now() + (options.timeoutMs ?? STEP_TIMEOUT_MS);
  while (Date.now() < deadline) {
    if (options.signal?.aborted) throw new WaitStopped();
    const events = await listEvents({ lab: lab.id });
    const found = events.find((event) => match(event, events));
    if (found) return found;
    await sleep(POLL_MS);
  }
  throw new Error(`timed out waiting for: ${what}`);
}
