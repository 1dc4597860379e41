import 'server-only';
import { listEventsUntilMoment } from '../../db/events';
import { enqueueWhatIf, whatIfWait } from '../../db/what-if-jobs';
import { FencingError } from '../model/core/errors';
import { toWire } from '../model/core/wire';
import { forkWaitWords } from '../model/history/fork-wait';
import { type ForkRecord, forkStart, type WhatIf, whatIfInput } from '../model/history/what-if';
import { forkKind, hasPauseStory } from '../model/history/what-if-settings';
import type { LabSummary } from '../model/lab/lab-instance';
import { type Credentials, ownerHashOf } from './access';
import { labFor } from './lab-commands';
import { getPrivateLabs } from './private-labs';
import { validatedAction } from './validated-action';

/*
 * "What if…" from a moment of a lab's history: the story runs again in a new private lab of the
 * caller's, with the settings changed. The original lab is only read (its events, to find the row at
 * that moment): nothing of it is written, so going back to it is always possible and it never changes.
 * Anyone who may see the original may fork it (a watcher of a shared lab too): the fork is theirs.
 * The run itself is a job in the room's queue (what-if-job.ts): any app server on the database runs
 * it, and another runs it again from the fork's moment if that one dies.
 */

export type WhatIfCaller = { credentials: Credentials; ownerSecret: string; address: string };

export type ForkStarted = { id: string; original: string };

/** Opens the fork's lab and puts its run in the queue. */
export async function startWhatIf(w: WhatIf, caller: WhatIfCaller): Promise<ForkStarted> {
  const original = await labFor(w.lab, caller.credentials);
  if (!hasPauseStory(original.kind)) {
    throw new FencingError('invalid_input', 'only the labs of the pause story can be forked with a what-if');
  }
  const owner = { ownerHash: ownerHashOf(caller.ownerSecret), address: caller.address };
  // The limits first: a refused fork reads nothing of the original's history.
  await getPrivateLabs().checkLimits(owner, { fork: true });
  // Only what the moment needs: the events up to it, not the whole history.
  const events = (await listEventsUntilMoment({ lab: original.id, msFromFirst: w.atMs })).map(toWire);
  const start = forkStart(events, w.atMs);
  if (!start)
    throw new FencingError('invalid_input', 'nothing has happened in that lab yet: there is no moment to fork');
  const record: ForkRecord = {
    from: original.id,
    atMs: w.atMs,
    pauseMs: w.pauseMs,
    leaseTtlMs: w.leaseTtlMs,
    renewEveryMs: w.renewEveryMs,
    fencing: w.fencing,
    startRow: start.row,
    highestTokenSeen: start.highestTokenSeen,
  };
  const lab = await getPrivateLabs().open(forkKind(w.fencing), owner, {
    record,
    rowValue: start.row?.value ?? 'initial',
    rowToken: start.row?.lastToken ?? 0,
  });
  try {
    await enqueueWhatIf(lab.id);
  } catch (error) {
    // A fork that cannot run is not left open, counted against its owner's labs.
    await getPrivateLabs()
      .close(lab, 'its run could not be queued')
      // The fork's lab closes later by itself when idle; the error that matters is rethrown.
      .catch(() => undefined);
    throw error;
  }
  return { id: lab.id, original: original.id };
}

/** The server action's door: the input checked with zod first, refusals as results. */
export const forkWhatIf = (raw: unknown, caller: WhatIfCaller) =>
  validatedAction(whatIfInput, async (w): Promise<ForkStarted> => {
    return startWhatIf(w, caller);
  })(raw);

/**
 * What a fork's page says while its story waits for a server to take its job, read from the queue
 * when the page asks (its page asks again every few seconds while it says so); undefined once a
 * server runs it, or for a lab that is closed or no fork.
 */
export async function forkWaitingWords(lab: LabSummary): Promise<string | undefined> {
  if (lab.visibility !== 'private' || lab.closed) return undefined;
  const wait = await whatIfWait(lab.id);
  return wait ? forkWaitWords(wait) : undefined;
}
