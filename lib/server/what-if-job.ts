import 'server-only';
import { z } from 'zod';
import { listEvents } from '../../db/events';
import { findLab, readLabFork } from '../../db/labs';
import { labIdSchema } from '../model/lab/lab-inputs';
import { getSupervisor } from '../supervisor/supervisor';
import { runWhatIf } from '../supervisor/what-if-run';
import { inLabOrder } from './lab-queue';
import { getPrivateLabs } from './private-labs';

/*
 * A what-if fork's run, as a job any app server on the database runs (issue 24): the fork's lab and
 * its settings are in the database (labs.fork, written when the fork was opened), so the job carries
 * only the lab's id. A run that finds history in the lab is a second try (the server of the first
 * died, or the first failed): the lab is reset to the fork's moment first, in one transaction that
 * also moves the lab to its next generation, so a first run's worker that is still alive somewhere
 * (its server stalled, not dead) is refused by the database from then on. The story is then told
 * from its start; only one telling is ever in the lab. A fork closed meanwhile runs nothing.
 */

export const whatIfPayload = z.object({ lab: labIdSchema }).strict();

export async function runWhatIfJob(payload: unknown): Promise<void> {
  const { lab: id } = whatIfPayload.parse(payload);
  const lab = await findLab(id);
  if (!lab || lab.closedAt) return;
  const fork = await readLabFork(id);
  if (!fork) return;
  await inLabOrder(lab.id, async () => {
    getPrivateLabs().touch(lab.id);
    if ((await listEvents({ lab: lab.id, limit: 1 })).length > 0) {
      await getSupervisor().resetLab(lab, fork.startRow?.value ?? undefined);
    }
    await runWhatIf(lab, fork);
  });
}
