import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import type { LabEvent } from '../model/core/events';
import type { LabInstance } from '../model/lab/lab-instance';

/*
 * The one way a story waits for what its processes record: it reads the lab's events every 25 ms
 * until one matches (in id order, the first that does), for the scenarios of `npm run scenario`
 * (lib/scenario/) and every story the engine runs on the server (story-driver.ts) alike. The match is given each poll's
 * events as read, once (the story driver converts them for its facts once per poll).
 */

export const STEP_TIMEOUT_MS = 20_000;
const POLL_MS = 25;

/** Thrown by a wait whose signal aborted (someone stopped the story). */
export class WaitStopped extends Error {
  constructor() {
    super('stopped');
  }
}

type WaitOptions = { timeoutMs?: number; signal?: AbortSignal };

/** The first event (in id order) that matches. */
export async function waitForLabEvent(
  lab: Pick<LabInstance, 'id'>,
  what: string,
  match: (event: LabEvent, events: readonly LabEvent[]) => boolean,
  options: WaitOptions = {},
): Promise<LabEvent> {
  let found: LabEvent | undefined;
  await waitForLabEvents(
    lab,
    what,
    (events) => {
      found = events.find((event) => match(event, events));
      return found !== undefined;
    },
    options,
  );
  return found as LabEvent;
}

/** Until `holds` is true of the lab's events as read (no events at all included: a story's first step). */
export async function waitForLabEvents(
  lab: Pick<LabInstance, 'id'>,
  what: string,
  holds: (events: readonly LabEvent[]) => boolean,
  options: WaitOptions = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? STEP_TIMEOUT_MS);
  while (Date.now() < deadline) {
    if (options.signal?.aborted) throw new WaitStopped();
    if (holds(await listEvents({ lab: lab.id }))) return;
    await sleep(POLL_MS);
  }
  throw new Error(`timed out waiting for: ${what}`);
}
