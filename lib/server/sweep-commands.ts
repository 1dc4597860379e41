import 'server-only';
import { z } from 'zod';
import { listPrivateLabs } from '../../db/labs';
import { FencingError } from '../model/core/errors';
import { sweepInput } from '../model/sweep/sweep-grid';
import { SWEEP_ID_PATTERN, type SweepView } from '../model/sweep/sweep-view';
import { latestSweepOf, startSweepRun, stopSweepRun, sweepRunOf, TRAINER_SWEEPER } from '../sweep/sweep-runs';
import { type Credentials, isTrainer, ownerHashOf } from './access';
import { validatedAction } from './validated-action';

/*
 * The sweep page's commands. A sweep starts real worker processes, so it is started by the trainer,
 * or by a browser that has a private lab open (its owner secret): the same people who may start
 * workers at all (a closed lab starts none). Once started, a sweep stays its starter's to follow and
 * stop, even if that browser's labs close meanwhile (idle for 15 minutes): so the page is shown to a
 * browser with any private lab, open or closed, and only starting asks for an open one. The server's
 * limits (the grid's size, the runs at once, one sweep at a time in the room) are checked here, in
 * lib/sweep/ and by the database, whatever the page sends. The runs are jobs any app server runs.
 */

const NOT_ALLOWED =
  'a sweep is run by the trainer, or from a browser with a private lab of its own: enter the trainer key, or open a private lab on the home page first';
const NOT_OPEN =
  'a sweep is started by the trainer, or from a browser with a private lab open, as workers are: your private labs have all closed, so open one on the home page first';

/** Who is asking, as the sweeps remember their starter: the trainer, or one browser's owner hash. */
export async function sweeperOf(credentials: Credentials): Promise<string | undefined> {
  if (isTrainer(credentials)) return TRAINER_SWEEPER;
  if (!credentials.ownerSecret) return undefined;
  const ownerHash = ownerHashOf(credentials.ownerSecret);
  const labs = await listPrivateLabs({ ownerHash, includeClosed: true });
  return labs.length > 0 ? `owner:${ownerHash}` : undefined;
}

/** Who may start a sweep: the trainer, or a browser with a private lab open (who may start workers). */
async function mayStart(credentials: Credentials): Promise<boolean> {
  if (isTrainer(credentials)) return true;
  if (!credentials.ownerSecret) return false;
  return (await listPrivateLabs({ ownerHash: ownerHashOf(credentials.ownerSecret) })).length > 0;
}

async function requireSweeper(credentials: Credentials): Promise<string> {
  const sweeper = await sweeperOf(credentials);
  if (!sweeper) throw new FencingError('forbidden', NOT_ALLOWED);
  return sweeper;
}

export const startSweep = (raw: unknown, credentials: Credentials) =>
  validatedAction(sweepInput, async (input) => {
    const sweeper = await requireSweeper(credentials);
    if (!(await mayStart(credentials))) throw new FencingError('forbidden', NOT_OPEN);
    return await startSweepRun(input, sweeper);
  })(raw);

const sweepIdInput = z
  .object({ id: z.string({ error: 'sweep must be an id' }).regex(SWEEP_ID_PATTERN, 'no such sweep') })
  .strict();

export const sweepStatus = (raw: unknown, credentials: Credentials) =>
  validatedAction(sweepIdInput, async ({ id }) => {
    const view = await sweepRunOf(id, await requireSweeper(credentials));
    if (!view) throw new FencingError('invalid_input', 'no such sweep');
    return view;
  })(raw);

/** "Stop the sweep": for whoever started it, and for the trainer. */
export const stopSweep = (raw: unknown, credentials: Credentials) =>
  validatedAction(sweepIdInput, async ({ id }) => {
    const view = await stopSweepRun(id, await requireSweeper(credentials));
    if (!view) throw new FencingError('invalid_input', 'no such sweep');
    return view;
  })(raw);

/**
 * What the page shows on arrival: whether this browser may see the sweep page (and whether it may
 * start a sweep now, with a private lab open), and its last sweep on this server.
 */
export async function sweepPageData(
  credentials: Credentials,
): Promise<{ allowed: boolean; mayStart: boolean; latest?: SweepView }> {
  const sweeper = await sweeperOf(credentials);
  if (!sweeper) return { allowed: false, mayStart: false };
  const latest = await latestSweepOf(sweeper);
  const start = await mayStart(credentials);
  return latest ? { allowed: true, mayStart: start, latest } : { allowed: true, mayStart: start };
}
