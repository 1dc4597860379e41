import 'server-only';
import type { z } from 'zod';
import { FencingError } from '../model/core/errors';
import { FAILOVER_LAB } from '../model/failover/failover-events';
import { failoverHolderInput, noFailoverInput, startFailoverPairInput } from '../model/failover/failover-inputs';
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
/** Anyone may watch. */
export const viewFailoverLab = (raw: unknown) => validatedAction(noFailoverInput, () => failoverLab().view())(raw);
