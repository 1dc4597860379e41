import { listEvents } from '../../db/events';
import type { LabEvent } from '../model/core/events';
import { type WaitOptions, waitFor } from './wait';

/** The first event of `lab` that matches, once it has been recorded. */
export function waitForEvent(
  lab: string,
  match: (event: LabEvent) => boolean,
  what: string,
  options?: WaitOptions,
): Promise<LabEvent> {
  return waitFor(async () => (await listEvents({ lab })).find(match), what, options);
}
