import { seededRandom } from './random';

/*
 * A chaos run's schedule, from a seed: which worker is frozen when and for how long (some shorter
 * than the lease, some longer, some in the critical window), which one crashes and when it comes
 * back, and optionally a database crash half-way. Pure: the same inputs give the same plan; the
 * run applies it as far as the operating system's scheduler allows.
 */

/** An action's worker may be `holder`: whoever holds the lease when the action strikes. */
export const LEASE_HOLDER = 'holder';

export type ChaosAction =
  | { at: number; kind: 'pause'; worker: string; ms: number; criticalWindow: boolean }
  | { at: number; kind: 'crash'; worker: string }
  | { at: number; kind: 'restart'; worker: string }
  | { at: number; kind: 'db-crash' };

export type ChaosOptions = { seed: number; workers: string[]; seconds: number; leaseTtlMs: number; dbCrash: boolean };

const ACTIONS_PER_WORKER_PER_10S = 3;
const HOLDER_SHARE = 0.6;

export function planChaos({ seed, workers, seconds, leaseTtlMs, dbCrash }: ChaosOptions): ChaosAction[] {
  const random = seededRandom(seed);
  const between = (min: number, max: number) => Math.round(min + random() * (max - min));
  const durationMs = seconds * 1000;
  // Nothing in the first second (let everyone start) or the last two (let the dust settle).
  const end = Math.max(1_500, durationMs - 2_000);
  const meanGapMs = 10_000 / (ACTIONS_PER_WORKER_PER_10S * workers.length);
  const busyUntil = new Map<string, number>();
  const plan: ChaosAction[] = [];

  for (let at = 1_000; at <= end; at += between(meanGapMs * 0.5, meanGapMs * 1.5)) {
    // Most actions strike the lease holder (that is where the damage is); the rest anyone free.
    const free = workers.filter((w) => (busyUntil.get(w) ?? 0) <= at);
    const holderFree = (busyUntil.get(LEASE_HOLDER) ?? 0) <= at;
    const worker = holderFree && random() < HOLDER_SHARE ? LEASE_HOLDER : free[Math.floor(random() * free.length)];
    if (worker === undefined) continue;
    if (worker === LEASE_HOLDER || random() < 0.75) {
      const long = random() < 0.5;
      const ms = long ? between(leaseTtlMs * 2, leaseTtlMs * 3) : between(leaseTtlMs * 0.2, leaseTtlMs * 0.9);
      plan.push({ at, kind: 'pause', worker, ms, criticalWindow: random() < 0.4 });
      busyUntil.set(worker, at + ms + 200);
    } else {
      // Crashes name a worker, so that its restart brings the same one back.
      const back = at + between(500, 2_000);
      plan.push({ at, kind: 'crash', worker }, { at: back, kind: 'restart', worker });
      busyUntil.set(worker, back + 200);
    }
  }
  if (dbCrash) plan.push({ at: Math.round(durationMs / 2), kind: 'db-crash' });
  return plan.sort((a, b) => a.at - b.at);
}
