import 'server-only';
import { z } from 'zod';
import { readLabDoors, setRemoteWorkersOpen } from '../../db/lab-doors';
import { FencingError } from '../model/core/errors';
import { labInput } from '../model/lab/lab-inputs';
import { startAgainAfterIdleStop } from './idle-shared-labs';
import { driverCommand } from './lab-commands';

/*
 * A shared lab's doors, for its trainer (issue 23): open or close it to the room's remote workers,
 * and start again the workers the idle watch stopped (idle-shared-labs.ts).
 */

const remoteWorkersInput = z.object({ lab: labInput.shape.lab, open: z.boolean() }).strict();

export const setRemoteWorkers = driverCommand(remoteWorkersInput, async (lab, { open }) => {
  if (lab.visibility !== 'shared' || !(await setRemoteWorkersOpen(lab.id, open))) {
    throw new FencingError(
      'invalid_input',
      'only a shared lab is opened to remote workers (a private one has its join key)',
    );
  }
  return { lab: lab.id, remoteWorkersOpen: open };
});

export const startAgain = driverCommand(labInput, async (lab) => {
  const { idleStop } = await readLabDoors(lab.id);
  if (!idleStop) throw new FencingError('invalid_input', 'the lab was not stopped for being unwatched');
  return { lab: lab.id, started: await startAgainAfterIdleStop(lab, idleStop.workers) };
});
