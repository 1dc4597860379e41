import 'server-only';
import type { z } from 'zod';
import { recordShownStep } from '../../db/shown-step';
import { FencingError } from '../model/core/errors';
import { FAILOVER_LAB } from '../model/failover/failover-events';
import {
  failoverHolderInput,
  failoverShownStepInput,
  noFailoverInput,
  startFailoverPairInput,
} from '../model/failover/failover-inputs';
import { failoverWalkthrough } from '../model/failover/failover-walkthrough';
import { getFailoverLab } from '../supervisor/failover/failover-lab';
import { type Credentials, isTrainer } from './access';
import { dataSubdir } from './data-dir';
import { type ActionResult, validatedAction } from './validated-action';

/*
 * The failover lab's controls, for the trainer only: the lab runs a primary and a standby of its
 * own (two PostgreSQL servers), one pair per app server, so there are no private failover labs.
 * Every input is validated (zod); none names a process, a port or a path.
 */

/** The pairs' data directories live under the app's data directory, as the embedded database's. */
export const failoverLab = () => getFailoverLab(dataSubdir(FAILOVER_LAB));

function trainerCommand<S extends z.ZodType, T>(schema: S, command: (input: z.output<S>) => Promise<T>) {
  return (raw: unknown, credentials: Credentials): Promise<ActionResult<T>> =>
    validatedAction(schema, async (input) => {
      if (!isTrainer(credentials)) {
        throw new FencingError(
          'forbidden',
          'only the trainer drives the failover lab (it runs two PostgreSQL servers of its own, so there are no private ones): enter the trainer key',
        );
      }
      return command(input);
    })(raw);
}

export const startFailoverPair = trainerCommand(startFailoverPairInput, ({ mode }) => failoverLab().start(mode));
export const resetFailoverLab = trainerCommand(noFailoverInput, () => failoverLab().reset());
export const cutReplication = trainerCommand(noFailoverInput, () => failoverLab().cut());
export const healReplication = trainerCommand(noFailoverInput, () => failoverLab().heal());
export const grantFailoverLease = trainerCommand(failoverHolderInput, ({ holder }) => failoverLab().grant(holder));
export const writeFailoverRow = trainerCommand(failoverHolderInput, ({ holder }) => failoverLab().write(holder));
export const killFailoverPrimary = trainerCommand(noFailoverInput, () => failoverLab().killPrimary());
export const promoteFailoverStandby = trainerCommand(noFailoverInput, () => failoverLab().promote());
/**
 * The walkthrough step the trainer shows (from 0), which every watcher's page of the lab shows; a
 * new story (a start) forgets it (failover-history.ts).
 */
export const recordFailoverShownStep = trainerCommand(failoverShownStepInput, async ({ step }) => {
  // The synchronous story is the longer: its last step is the highest a page can show.
  const steps = failoverWalkthrough('sync').length;
  if (step >= steps)
    throw new FencingError('invalid_input', `step must be below ${steps}: the walkthrough has ${steps} steps`);
  await recordShownStep(FAILOVER_LAB, step);
  return { step };
});
/** Anyone may watch. */
export const viewFailoverLab = (raw: unknown) => validatedAction(noFailoverInput, () => failoverLab().view())(raw);
