import 'server-only';
import { FencingError } from '../model/core/errors';
import { singleton } from '../os/process-singletons';
import { limitFromEnv } from './feed-slots';

/*
 * How many guards a trainee may send to the room's line of attacks (each attack is two to four real
 * worker processes for up to ~20 s, run by whichever app server has a free slot: lib/server/job-runner.ts):
 * a few a minute per owner and per address (an address is a few trainees behind one router). One in
 * line per owner is the database's rule. Refused statements (a typo, a rule) cost no worker but are
 * stored for the wall: they are limited per owner and per address too. A refusal is a FencingError the
 * editor shows; the statement stays in the editor, nothing is recorded, so nothing is lost. The bounds
 * can be raised. Counted per server: a second server counts its own submissions.
 */

const DEFAULT_PER_OWNER_PER_MINUTE = 6;
const DEFAULT_REFUSALS_PER_OWNER_PER_MINUTE = 10;
/** One address may be a few trainees behind one router: three people's worth a minute. */
const ADDRESS_SHARE = 3;
const MINUTE_MS = 60_000;

export type GuardAttackLimits = {
  perOwnerPerMinute: number;
  refusalsPerOwnerPerMinute?: number;
};

/** Times per key over the last minute. */
class MinuteCounts {
  private readonly times = new Map<string, number[]>();

  recent(key: string, now: number): number[] {
    const kept = (this.times.get(key) ?? []).filter((at) => at > now - MINUTE_MS);
    if (kept.length) this.times.set(key, kept);
    else this.times.delete(key);
    return kept;
  }

  add(key: string, now: number): void {
    this.times.set(key, [...this.recent(key, now), now]);
  }
}

const waitSeconds = (oldest: number, now: number) => Math.ceil((oldest + MINUTE_MS - now) / 1000);

export class GuardAttackSlots {
  private readonly ownerStarts = new MinuteCounts();
  private readonly addressStarts = new MinuteCounts();
  private readonly ownerRefusals = new MinuteCounts();
  private readonly addressRefusals = new MinuteCounts();

  constructor(
    private readonly limits: () => GuardAttackLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts a guard by `owner` from `address` going to the room's line of attacks, or throws a
   * FencingError when they have had their share this minute. One in line per owner is the database's
   * rule (guard_attempts_one_queued), across servers.
   */
  take(owner: string, address = 'unknown'): void {
    const limits = this.limits();
    const now = this.now();
    this.withinMinute(this.ownerStarts, owner, limits.perOwnerPerMinute, 'attacks a minute', now);
    this.withinMinute(
      this.addressStarts,
      address,
      limits.perOwnerPerMinute * ADDRESS_SHARE,
      'attacks a minute from your address',
      now,
    );
    this.ownerStarts.add(owner, now);
    this.addressStarts.add(address, now);
  }

  /** Counts a refused statement by `owner` from `address`, or throws a FencingError when they have had their share. */
  takeRefusal(owner: string, address = 'unknown'): void {
    const limits = this.limits();
    const perOwner = limits.refusalsPerOwnerPerMinute ?? DEFAULT_REFUSALS_PER_OWNER_PER_MINUTE;
    const now = this.now();
    this.withinMinute(this.ownerRefusals, owner, perOwner, 'refused guards a minute', now);
    this.withinMinute(
      this.addressRefusals,
      address,
      perOwner * ADDRESS_SHARE,
      'refused guards a minute from your address',
      now,
    );
    this.ownerRefusals.add(owner, now);
    this.addressRefusals.add(address, now);
  }

  private withinMinute(counts: MinuteCounts, key: string, limit: number, what: string, now: number): void {
    const recent = counts.recent(key, now);
    if (recent.length < limit) return;
    throw new FencingError(
      'rate_limited',
      `at most ${limit} ${what}: try again in ${waitSeconds(recent[0] as number, now)} s (your statement is kept)`,
    );
  }
}

/** The server's one count of running attacks (lib/os/process-singletons.ts: Next loads modules more than once). */
export function getGuardAttackSlots(): GuardAttackSlots {
  return singleton(
    'server.guard-attack-slots',
    () =>
      new GuardAttackSlots(() => {
        return {
          perOwnerPerMinute: limitFromEnv('FENCING_LAB_GUARD_ATTACKS_PER_MINUTE', DEFAULT_PER_OWNER_PER_MINUTE),
          refusalsPerOwnerPerMinute: limitFromEnv(
            'FENCING_LAB_GUARD_REFUSALS_PER_MINUTE',
            DEFAULT_REFUSALS_PER_OWNER_PER_MINUTE,
          ),
        };
      }),
  );
}
