import 'server-only';
import { FencingError } from '../model/errors';
import { limitFromEnv } from './feed-slots';

/*
 * How many attacks on trainees' guards this server runs (each is two to four real worker processes
 * for up to ~20 s): one at a time per owner, never every slot for one client address (two cookies
 * from one laptop must not keep a third trainee out), a few a minute per owner and per address, and
 * a bound in total for the machine (2 on a 2-CPU box). Refused statements (a typo, a rule) cost no
 * worker but are stored for the wall: they are limited per owner and per address too. A refusal is a
 * FencingError the editor shows; the statement stays in the editor, nothing is recorded, so nothing
 * is lost. The bounds can be raised.
 */

const DEFAULT_MAX_RUNNING = 2;
const DEFAULT_PER_OWNER_PER_MINUTE = 6;
const DEFAULT_REFUSALS_PER_OWNER_PER_MINUTE = 10;
/** One address may be a few trainees behind one router: three people's worth a minute. */
const ADDRESS_SHARE = 3;
const MINUTE_MS = 60_000;

export type GuardAttackLimits = {
  running: number;
  perOwnerPerMinute: number;
  /** Attacks one address may have running at once: by default all but one of the server's. */
  runningPerAddress?: number;
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
  private readonly running = new Map<symbol, { owner: string; address: string }>();
  private readonly ownerStarts = new MinuteCounts();
  private readonly addressStarts = new MinuteCounts();
  private readonly ownerRefusals = new MinuteCounts();
  private readonly addressRefusals = new MinuteCounts();

  constructor(
    private readonly limits: () => GuardAttackLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** A slot for an attack by `owner` from `address`, with its release (idempotent); or a FencingError that says why not. */
  take(owner: string, address = 'unknown'): { release: () => void } {
    const limits = this.limits();
    const now = this.now();
    const running = [...this.running.values()];
    if (running.some((slot) => slot.owner === owner)) {
      throw new FencingError('rate_limited', 'your guard is already being attacked: wait for its verdict');
    }
    this.withinMinute(this.ownerStarts, owner, limits.perOwnerPerMinute, 'attacks a minute', now);
    this.withinMinute(
      this.addressStarts,
      address,
      limits.perOwnerPerMinute * ADDRESS_SHARE,
      'attacks a minute from your address',
      now,
    );
    const perAddress = limits.runningPerAddress ?? Math.max(1, limits.running - 1);
    if (running.filter((slot) => slot.address === address).length >= perAddress) {
      throw new FencingError(
        'rate_limited',
        'another guard from your address is being attacked: try again when its verdict is in (your statement is kept)',
      );
    }
    if (running.length >= limits.running) {
      throw new FencingError(
        'rate_limited',
        'the lab is busy (other guards are being attacked): try again in a moment (your statement is kept)',
      );
    }
    const key = Symbol(owner);
    this.running.set(key, { owner, address });
    this.ownerStarts.add(owner, now);
    this.addressStarts.add(address, now);
    return { release: () => void this.running.delete(key) };
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

  /** Attacks running now (for tests). */
  count(): number {
    return this.running.size;
  }
}

type GlobalWithSlots = typeof globalThis & { __fencingLabGuardAttackSlots?: GuardAttackSlots };

/** The server's one count of running attacks (kept on globalThis: Next loads modules more than once). */
export function getGuardAttackSlots(): GuardAttackSlots {
  const holder = globalThis as GlobalWithSlots;
  holder.__fencingLabGuardAttackSlots ??= new GuardAttackSlots(() => {
    const running = limitFromEnv('FENCING_LAB_MAX_GUARD_ATTACKS', DEFAULT_MAX_RUNNING);
    return {
      running,
      perOwnerPerMinute: limitFromEnv('FENCING_LAB_GUARD_ATTACKS_PER_MINUTE', DEFAULT_PER_OWNER_PER_MINUTE),
      runningPerAddress: limitFromEnv('FENCING_LAB_GUARD_ATTACKS_PER_ADDRESS', Math.max(1, running - 1)),
      refusalsPerOwnerPerMinute: limitFromEnv(
        'FENCING_LAB_GUARD_REFUSALS_PER_MINUTE',
        DEFAULT_REFUSALS_PER_OWNER_PER_MINUTE,
      ),
    };
  });
  return holder.__fencingLabGuardAttackSlots;
}
