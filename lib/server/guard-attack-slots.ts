import 'server-only';
import { roomSettings } from '../config/room-settings';
import { type GuardShare, guardShare } from '../model/guard/guard-share';

/*
 * How many guards a trainee may send to the room's line of attacks (each attack is two to four real
 * worker processes for up to ~20 s, run by whichever app server has a free slot: lib/server/job-runner.ts):
 * a few a minute per owner and per address (an address is a few trainees behind one router). Refused
 * statements (a typo, a rule) cost no worker but are stored for the wall: they are limited per owner
 * and per address too. These are the bounds, from the settings; the database counts against them for
 * the whole room, in the statement that stores the attempt (db/functions/fl_take_guard_share.sql), so a
 * second app server gives nobody a second share and a restart forgets nothing. One in line per owner is
 * the database's rule too. Past a bound the editor says why and when to come back
 * (lib/model/guard/guard-share.ts); the statement stays in the editor, nothing is recorded.
 */

export type GuardShares = { attacks: GuardShare; refusals: GuardShare };

/** The bounds: FENCING_LAB_GUARD_ATTACKS_PER_MINUTE and FENCING_LAB_GUARD_REFUSALS_PER_MINUTE, as the room's settings have them. */
export function guardShares(): GuardShares {
  const settings = roomSettings();
  return {
    attacks: guardShare(settings.guardAttacksPerMinute),
    refusals: guardShare(settings.guardRefusalsPerMinute),
  };
}
