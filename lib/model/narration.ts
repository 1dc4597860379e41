import type { WireEvent } from './wire';

/** The walkthroughs' words for tokens, values and database times (pure). */

export const isOutcome = (e: WireEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

export const t = (n: number | undefined) => (n === undefined ? '…' : String(n));
export const value = (e: WireEvent | undefined) => JSON.stringify(e?.detail.value ?? '…');
export const time = (ms: number | string | undefined) =>
  ms === undefined ? '…' : new Date(typeof ms === 'string' ? Date.parse(ms) : ms).toISOString().slice(11, 23);
