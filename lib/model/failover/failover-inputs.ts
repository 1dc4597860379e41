import { z } from 'zod';

/** What a client may ask of the failover lab: a mode, a holder by its letter; never a PID, port or path. */

export const FAILOVER_HOLDERS = ['A', 'B', 'C'] as const;
export type FailoverHolder = (typeof FAILOVER_HOLDERS)[number];

export const startFailoverPairInput = z.strictObject({ mode: z.enum(['async', 'sync']) });
export const failoverHolderInput = z.strictObject({ holder: z.enum(FAILOVER_HOLDERS) });
export const noFailoverInput = z.strictObject({});
