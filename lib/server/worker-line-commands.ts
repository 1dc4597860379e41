import { roomSettings } from '../config/room-settings';
import 'server-only';
import { isIP } from 'node:net';
import { readLabDoors } from '../../db/lab-doors';
import { labJoinKey } from '../../db/labs';
import { databaseUrl } from '../../db/pool';
import { issueWorkerLine, workerLineUrl } from '../../db/worker-lines';
import { runsOnFailoverPair } from '../labs/traits';
import { FencingError } from '../model/core/errors';
import { labInput } from '../model/lab/lab-inputs';
import { hasPacketRelay } from '../model/lab/lab-kinds';
import { workerCommand, workerExecCommand, workerPythonCommand } from '../model/lab/worker-command';
import { type Credentials, canDrive, ownerHashOf } from './access';
import { labFor } from './lab-commands';
import { validatedAction } from './validated-action';

/*
 * A person's own worker line (issue 33; db/worker-lines.ts), issued from a lab's page to the browser
 * that asks: its private lab's owner, or anyone watching a shared lab while its trainer lets remote
 * workers in. One line per browser and lab: asked again, the same role gets a new password and its
 * settings as issued. The answer is the command to paste, with the line's URL in it (and the same with a
 * program of one's own as the lane, `--exec`, and that with the runner in Python); it is shown to that browser once and kept nowhere but in
 * PostgreSQL's own password hash.
 */

export type IssuedWorkerLine = { role: string; command: string; execCommand: string; pythonCommand: string };

/**
 * Where a person's machine reaches PostgreSQL: the address the launcher found for the room
 * (FENCING_LAB_WORKER_HOST), else the database URL's own host (a worker on this machine).
 */
function workerHost(): string | undefined {
  return roomSettings().workerHost;
}

export function issueMyWorkerLine(
  raw: unknown,
  caller: { credentials: Credentials; ownerSecret: string; address: string | undefined },
) {
  return validatedAction(labInput, async ({ lab: id }): Promise<IssuedWorkerLine> => {
    const lab = await labFor(id, caller.credentials);
    if (lab.closedAt) throw new FencingError('lab_closed', 'this lab is closed: open a new one to run workers in it');
    if (hasPacketRelay(lab.kind) || runsOnFailoverPair(lab.kind)) {
      throw new FencingError('invalid_input', 'only this server starts the workers of this lab: it has no worker line');
    }
    let joinKey: string | undefined;
    if (lab.visibility === 'private') {
      if (!canDrive(lab, caller.credentials))
        throw new FencingError('forbidden', 'this private lab belongs to another browser');
      joinKey = await labJoinKey(lab.id);
    } else if (!(await readLabDoors(lab.id)).remoteWorkersOpen) {
      throw new FencingError(
        'forbidden',
        'this shared lab takes no remote workers now: your trainer opens it to them (or open a private lab of your own)',
      );
    }
    const address = caller.address && isIP(caller.address) ? caller.address : undefined;
    const line = await issueWorkerLine({ holder: ownerHashOf(caller.ownerSecret), lab: lab.id, address });
    const url = workerLineUrl(databaseUrl(), line, workerHost());
    return {
      role: line.role,
      command: workerCommand(url, lab.id, joinKey),
      execCommand: workerExecCommand(url, lab.id, joinKey),
      pythonCommand: workerPythonCommand(url, lab.id, joinKey),
    };
  })(raw);
}
