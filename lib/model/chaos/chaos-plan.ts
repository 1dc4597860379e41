import { seededRandom } from '../core/random';

/*
 * A chaos run's schedule, from a seed, aimed at the critical window: a stale write needs a holder
 * that checked its lease, then stalls before its write reaches the database while another holder
 * takes over and writes. So most actions strike whoever holds the lease, one after another:
 *  - a freeze armed for the critical window (after the lease check, before the write), longer than
 *    the lease, so that the lease runs out under the frozen holder;
 *  - a forced takeover: the lease service ends the holder's lease early, and the next worker takes
 *    it while the holder, unaware, writes on until its next renewal is refused (or, frozen in its
 *    window, sends its stale write on waking without the lease having to run out first);
 *  - in the delayed-packet labs, the holder's connection held at its next write, past the lease;
 * and the rest: freezes shorter than the lease anywhere, crashes and restarts, database crashes.
 * Pure: the same inputs give the same plan; the run applies it as far as the scheduler allows.
 */

/** An action's worker may be `holder`: whoever holds the lease when the action strikes. */
export const LEASE_HOLDER = 'holder';

export type ChaosAction =
  | { at: number; kind: 'pause'; worker: string; ms: number; criticalWindow: boolean }
  | { at: number; kind: 'takeover' }
  | { at: number; kind: 'hold'; worker: typeof LEASE_HOLDER; ms: number }
  | { at: number; kind: 'crash'; worker: string }
  | { at: number; kind: 'restart'; worker: string }
  | { at: number; kind: 'db-crash' };

export type ChaosOptions = {
  seed: number;
  workers: string[];
  seconds: number;
  leaseTtlMs: number;
  dbCrash: boolean;
  /** The lab's workers reach PostgreSQL through a packet relay that can hold a write (the delayed-packet labs). */
  heldConnections?: boolean;
};

/** A strike at the holder every 0.3 to 0.6 lease: the next holder is struck as soon as it takes over. */
const STRIKE_GAP_LEASES = { min: 0.3, max: 0.6 } as const;
/** A freeze in the window lasts 1.3 to 2.2 leases: the lease runs out under it, with time for a takeover. */
const WINDOW_FREEZE_LEASES = { min: 1.3, max: 2.2 } as const;
/** A forced takeover every 0.3 to 0.7 lease, whoever holds it (a frozen holder included). */
const TAKEOVER_GAP_LEASES = { min: 0.3, max: 0.7 } as const;
/** Of the strikes in the delayed-packet labs, how many hold the connection rather than freeze. */
const HOLD_SHARE = 0.6;
/** Besides the strikes: freezes shorter than the lease, and crashes, of named workers. */
const SIDE_ACTIONS_PER_WORKER_PER_10S = 1;
const CRASH_SHARE = 0.3;
/** A database crash about every 20 s of a run that asks for them, at least one (half-way in a short run). */
const DB_CRASH_EVERY_MS = 20_000;

/**
 * The run applies each track's actions in order, and the tracks side by side: a strike or a takeover
 * waiting for a holder that has written holds up neither the other strikes, the named workers'
 * actions nor the database's crashes (in the token-as-text lab, once its token has gained a digit,
 * no holder writes, and a crash behind the takeovers would never come).
 */
export type ChaosTrack = 'holder' | 'lease' | 'workers' | 'database';

export function trackOf(action: ChaosAction): ChaosTrack {
  if (action.kind === 'db-crash') return 'database';
  if (action.kind === 'takeover') return 'lease';
  if ('worker' in action && action.worker === LEASE_HOLDER) return 'holder';
  return 'workers';
}

export function planChaos(options: ChaosOptions): ChaosAction[] {
  const { seed, workers, seconds, leaseTtlMs, dbCrash } = options;
  const random = seededRandom(seed);
  const between = (min: number, max: number) => Math.round(min + random() * (max - min));
  const durationMs = seconds * 1000;
  // Nothing in the first second (let everyone start) or the last two (let the dust settle).
  const end = Math.max(1_500, durationMs - 2_000);
  const plan: ChaosAction[] = [];
  const every = (gap: { min: number; max: number }, strike: (at: number) => void) => {
    for (let at = 1_000; at <= end; at += between(leaseTtlMs * gap.min, leaseTtlMs * gap.max)) strike(at);
  };

  every(STRIKE_GAP_LEASES, (at) => {
    const ms = between(leaseTtlMs * WINDOW_FREEZE_LEASES.min, leaseTtlMs * WINDOW_FREEZE_LEASES.max);
    if (options.heldConnections && random() < HOLD_SHARE) plan.push({ at, kind: 'hold', worker: LEASE_HOLDER, ms });
    else plan.push({ at, kind: 'pause', worker: LEASE_HOLDER, ms, criticalWindow: true });
  });
  every(TAKEOVER_GAP_LEASES, (at) => plan.push({ at, kind: 'takeover' }));

  // Named workers, each one thing at a time: freezes shorter than the lease, crashes and restarts.
  const busyUntil = new Map<string, number>();
  const meanGapMs = 10_000 / (SIDE_ACTIONS_PER_WORKER_PER_10S * workers.length);
  for (let at = 1_000 + between(0, meanGapMs); at <= end; at += between(meanGapMs * 0.5, meanGapMs * 1.5)) {
    const free = workers.filter((w) => (busyUntil.get(w) ?? 0) <= at);
    const worker = free[Math.floor(random() * free.length)];
    if (worker === undefined) continue;
    if (random() < CRASH_SHARE) {
      // Crashes name a worker, so that its restart brings the same one back.
      const back = at + between(500, 2_000);
      plan.push({ at, kind: 'crash', worker }, { at: back, kind: 'restart', worker });
      busyUntil.set(worker, back + 200);
    } else {
      const ms = between(leaseTtlMs * 0.2, leaseTtlMs * 0.9);
      plan.push({ at, kind: 'pause', worker, ms, criticalWindow: random() < 0.4 });
      busyUntil.set(worker, at + ms + 200);
    }
  }

  if (dbCrash) {
    const crashes = Math.max(1, Math.floor(durationMs / DB_CRASH_EVERY_MS));
    for (let i = 1; i <= crashes; i++)
      plan.push({ at: Math.round((durationMs * i) / (crashes + 1)), kind: 'db-crash' });
  }
  return plan.sort((a, b) => a.at - b.at);
}
