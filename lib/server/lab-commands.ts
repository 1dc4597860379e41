import 'server-only';
import type { z } from 'zod';
import { clearIdleStop } from '../../db/lab-doors';
import { findLab, type LabRecord, listPrivateLabs } from '../../db/labs';
import { revealPollsAtStep } from '../../db/polls';
import { recordShownStep } from '../../db/shown-step';
import { startChaosRun } from '../chaos/chaos-runs';
import { FencingError } from '../model/core/errors';
import {
  chaosInput,
  labInput,
  openPrivateLabInput,
  pauseWorkerInput,
  shownStepInput,
  startWorkerInput,
  workerActionInput,
} from '../model/lab/lab-inputs';
import { walkthroughFor } from '../model/walkthrough/walkthrough';
import { getSupervisor } from '../supervisor/supervisor';
import { type Credentials, canView, ownerHashOf, requireDriver } from './access';
import { inLabOrder } from './lab-queue';
import { getPrivateLabs } from './private-labs';
import { type ActionResult, validatedAction } from './validated-action';

/*
 * The lab's controls, with who-may-do-what applied: each takes plain data (validated with zod)
 * and the caller's credentials (from cookies, read by app/actions.ts). A worker is named by the
 * lab's own id ("w1") or its name, never by a process id; nothing here takes SQL or a file path.
 */

type LabCommand<T> = (input: unknown, credentials: Credentials) => Promise<ActionResult<T>>;

/** Resolves the lab named in the input and lets the command run only for one who may drive it. */
export function driverCommand<S extends z.ZodType<{ lab: string }>, T>(
  schema: S,
  command: (lab: LabRecord, input: z.output<S>) => Promise<T>,
): LabCommand<T> {
  return (raw, credentials) =>
    validatedAction(schema, (input) =>
      inLabOrder(input.lab, async () => {
        const lab = await labFor(input.lab, credentials);
        requireDriver(lab, credentials);
        // A shared lab is used too: one nobody watches or drives stops its workers (idle-shared-labs.ts).
        getPrivateLabs().touch(lab.id);
        return command(lab, input);
      }),
    )(raw);
}

/** The lab, if it exists and the caller may see it; a private lab of someone else's does not exist. */
export async function labFor(id: string, credentials: Credentials): Promise<LabRecord> {
  const lab = await findLab(id);
  if (!lab || !canView(lab, credentials)) throw new FencingError('invalid_input', `no lab ${JSON.stringify(id)}`);
  return lab;
}

// Every worker alike, whichever server started it and wherever it runs (lib/supervisor/supervisor.ts).
export const startWorker = driverCommand(startWorkerInput, async (lab, { settings }) => {
  const started = await getSupervisor().startWorker(lab, settings);
  await clearIdleStop(lab.id);
  return started;
});
export const pauseWorker = driverCommand(pauseWorkerInput, (lab, { worker, plan }) =>
  getSupervisor().pause(lab, worker, plan),
);
export const resumeWorker = driverCommand(workerActionInput, (lab, { worker }) => getSupervisor().resume(lab, worker));
export const crashWorker = driverCommand(workerActionInput, (lab, { worker }) => getSupervisor().crash(lab, worker));
export const restartWorker = driverCommand(workerActionInput, (lab, { worker }) =>
  getSupervisor().restart(lab, worker),
);
// The delayed-packet labs: the worker's packet relay, named by the worker (never a port or a process id).
export const holdConnection = driverCommand(workerActionInput, (lab, { worker }) =>
  getSupervisor().holdConnection(lab, worker),
);
export const releaseConnection = driverCommand(workerActionInput, (lab, { worker }) =>
  getSupervisor().releaseConnection(lab, worker),
);
export const resetLab = driverCommand(labInput, async (lab) => {
  await getSupervisor().resetLab(lab);
  await clearIdleStop(lab.id);
  return { lab: lab.id };
});
/**
 * The walkthrough step the trainer shows now, recorded for the lab's current run: every watcher's
 * page shows that step (and no other), whatever the lab's events suggest.
 */
export const recordWalkthroughStep = driverCommand(shownStepInput, async (lab, { step }) => {
  const steps = walkthroughFor(lab.kind).length;
  if (step >= steps)
    throw new FencingError('invalid_input', `step must be below ${steps}: the walkthrough has ${steps} steps`);
  await recordShownStep(lab.id, step);
  // The step the room was asked about ran: the room sees what it predicted as it watches.
  await revealPollsAtStep(lab.id, step);
  return { lab: lab.id, step };
});
// A chaos run resets the lab first, which stops every worker of it.
export const startChaos = driverCommand(chaosInput, async (lab, { lab: _, ...options }) => startChaosRun(lab, options));

/** Anyone who may see the lab may list its workers. */
export const listWorkers = (raw: unknown, credentials: Credentials) =>
  validatedAction(labInput, async ({ lab }) => getSupervisor().listWorkers(await labFor(lab, credentials)))(raw);

/**
 * Opens a private lab for the caller's browser (its owner secret) from its client address (the
 * TCP peer, lib/server/client-address.ts): a cookie-less script gets a new owner secret per
 * request, so the per-address limit is what holds it.
 */
export const openPrivateLab = (
  raw: unknown,
  caller: Required<Pick<Credentials, 'ownerSecret'>> & { address: string },
) =>
  validatedAction(openPrivateLabInput, async ({ kind }) => {
    const lab = await getPrivateLabs().open(kind, {
      ownerHash: ownerHashOf(caller.ownerSecret),
      address: caller.address,
    });
    return { id: lab.id, kind: lab.kind };
  })(raw);

/** Closes one of the caller's private labs now: workers stopped, history kept. */
export const closePrivateLab = driverCommand(labInput, async (lab) => {
  if (lab.visibility !== 'private') throw new FencingError('invalid_input', 'the shared labs cannot be closed');
  await getPrivateLabs().close(lab, 'closed by its owner');
  return { lab: lab.id };
});

export async function privateLabsOf(credentials: Credentials): Promise<LabRecord[]> {
  if (!credentials.ownerSecret) return [];
  return listPrivateLabs({ ownerHash: ownerHashOf(credentials.ownerSecret), includeClosed: true });
}
