/*
 * How many guards a trainee may send a minute, and the words of a refusal (issue 24): a few attacks
 * a minute per owner and per address (an address is a few trainees behind one router), and more
 * refused statements (a typo costs no worker, but is stored for the wall). The database counts them
 * for the whole room, whichever app server takes a submission (db/functions/fl_take_guard_share.sql);
 * these are its bounds and what the editor says past one. Pure.
 */

/** What a submission counts as: a statement sent to the line of attacks, or one refused before it ran. */
export type GuardShareKind = 'attack' | 'refusal';

/** The bounds of one kind over one window. */
export type GuardShare = { perOwner: number; perAddress: number; windowMs: number };

/** A minute: the words say "a minute". */
export const GUARD_SHARE_WINDOW_MS = 60_000;
/** One address may be a few trainees behind one router: three people's worth a minute. */
export const ADDRESS_SHARE = 3;

/** A share for `perOwner` a minute: three times as many from one address. */
export function guardShare(perOwner: number): GuardShare {
  return { perOwner, perAddress: perOwner * ADDRESS_SHARE, windowMs: GUARD_SHARE_WINDOW_MS };
}

/** What the database said when a share was used: whose, its bound, and the seconds until one frees. */
export type GuardShareUsed = { kind: GuardShareKind; by: 'owner' | 'address'; limit: number; waitSeconds: number };

/** "at most 6 attacks a minute: try again in 54 s (your statement is kept)". */
export function guardShareWords(used: GuardShareUsed): string {
  const what = used.kind === 'attack' ? 'attacks' : 'refused guards';
  const from = used.by === 'address' ? ' from your address' : '';
  return `at most ${used.limit} ${what} a minute${from}: try again in ${used.waitSeconds} s (your statement is kept)`;
}
