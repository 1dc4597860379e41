import { z } from 'zod';
import { FAILOVER_HOLDERS } from './failover-events';

/** What a client may ask of the failover lab: a mode, a holder by its letter; never a PID, port or path. */

export const startFailoverPairInput = z.strictObject({ mode: z.enum(['async', 'sync']) });
export const failoverHolderInput = z.strictObject({ holder: z.enum(FAILOVER_HOLDERS) });
export const noFailoverInput = z.strictObject({});
/** The walkthrough step (from 0) the trainer shows, for the watchers' pages (checked against the walkthrough's length on the server). */
export const failoverShownStepInput = z.strictObject({
  step: z
    .number({ error: 'step must be a number' })
    .int('step must be a whole number')
    .min(0, 'step must be 0 or more')
    .max(99, 'step must be at most 99'),
});
