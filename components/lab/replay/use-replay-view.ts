'use client';

import { useMemo, useRef } from 'react';
import type { LabSnapshot, WireEvent } from '@/lib/model/core/wire';
import { type ReplayBounds, replayBounds, workersAt } from '@/lib/model/history/replay';
import { momentOffsetLabel, stableEventsUntil } from '@/lib/model/history/replay-view';
import { clock } from '../format';
import { useLabStore } from '../lab-store-provider';
import { useDbNow } from '../use-db-now';

/*
 * What the lab's views show, live or replayed: derived here from the store's log and its replay
 * moment, never stored, so that the timeline, the tables and the verdict cannot disagree.
 */

/** The first and last moments of the whole history held (undefined while it is empty). */
export function useReplayBounds(): ReplayBounds | undefined {
  const events = useLabStore((s) => s.events);
  return useMemo(() => replayBounds(events), [events]);
}

/**
 * The moment the views show: the replay's, or a walkthrough step's the lab has gone on past (the
 * trainer went Back, or the story ran ahead by itself); undefined while they show the lab live.
 */
export function useViewMoment(): number | undefined {
  return useLabStore((s) => s.replayAt ?? (s.stepMoment?.past ? s.stepMoment.at : undefined));
}

/**
 * How the panels say which moment they show: "as at 12.3 s (replay)", "as at step 3, 12:33:23.131",
 * or, live while a step is shown, "live now, 38 s after step 3"; undefined live with no step.
 */
export function useViewMomentLabel(): string | undefined {
  const replayAt = useLabStore((s) => s.replayAt);
  const stepMoment = useLabStore((s) => s.stepMoment);
  const bounds = useReplayBounds();
  // Only "live now, 12 s after step 3" moves with the clock.
  const dbNow = useDbNow(1_000, replayAt === undefined && stepMoment !== undefined && !stepMoment.past);
  if (replayAt !== undefined) return `as at ${bounds ? momentOffsetLabel(replayAt, bounds) : '0.0 s'} (replay)`;
  if (!stepMoment) return undefined;
  if (stepMoment.past) return `as at step ${stepMoment.step}, ${clock(stepMoment.at)}`;
  const since = Math.max(0, Math.round((dbNow - stepMoment.at) / 1000));
  return `live now, ${since} s after step ${stepMoment.step}`;
}

/**
 * The events shown: all of them live, those up to the moment while one is shown (the same array while
 * none is added); at a walkthrough step's moment, those up to the event that reached it, by id (an
 * event of the same millisecond after it is the next step's, as the step's words have it).
 */
export function useViewEvents(): readonly WireEvent[] {
  const events = useLabStore((s) => s.events);
  const replayAt = useViewMoment();
  const upToId = useLabStore((s) => (s.replayAt === undefined && s.stepMoment?.past ? s.stepMoment.upToId : undefined));
  const previous = useRef<readonly WireEvent[] | undefined>(undefined);
  return useMemo(() => {
    if (replayAt === undefined) return events;
    const shown = stableEventsUntil(previous.current, events, replayAt, upToId);
    previous.current = shown;
    return shown;
  }, [events, replayAt, upToId]);
}

/** "Now" as the views draw it: the moment shown, or the database's clock ticking every `tickMs` (live only). */
export function useViewNow(tickMs = 100): number {
  const replayAt = useViewMoment();
  const dbNow = useDbNow(tickMs, replayAt === undefined);
  return replayAt ?? dbNow;
}

/**
 * A worker as the strip shows it: the snapshot's worker, live, or rebuilt from the events at the moment
 * shown; its phase may also be `expired` (it believes it holds a lease that ran out by the database's clock).
 */
export type ViewWorker = Pick<
  LabSnapshot['workers'][number],
  'id' | 'name' | 'phase' | 'alive' | 'armed' | 'token' | 'remote'
>;

const NO_WORKERS: readonly ViewWorker[] = [];

/**
 * The workers the strip shows: as they were at the moment shown (replay/history workersAt), or live;
 * live, a worker that believes it holds the lease while the database's lease is not its own, or ran
 * out, is shown as `expired`, not as holding it (the tables beside say whose the lease is).
 */
export function useViewWorkers(): readonly ViewWorker[] {
  const live = useLabStore((s) => s.snapshot?.workers);
  const lease = useLabStore((s) => s.snapshot?.lease);
  const events = useLabStore((s) => s.events);
  const moment = useViewMoment();
  const ticking = useDbNow(1_000, moment === undefined);
  // At a fixed moment nothing ticks: the workers are rebuilt only when the moment or the events change.
  const now = moment === undefined ? ticking : 0;
  return useMemo(() => {
    if (moment !== undefined) {
      // Each worker under the id the live snapshot knows it by ("w1"), in the snapshot's order, so that
      // selecting one (a click, the keys 1–8) and P and R act on the same worker as live.
      const order = new Map((live ?? []).map((w, i) => [w.name, { worker: w, i }]));
      return workersAt(events, moment)
        .map((w) => {
          const known = order.get(w.name);
          return {
            ...w,
            id: known?.worker.id ?? w.id,
            armed: false,
            ...(known?.worker.remote ? { remote: true } : {}),
            rank: known?.i ?? Number.MAX_SAFE_INTEGER,
          };
        })
        .sort((a, b) => a.rank - b.rank)
        .map(({ rank: _rank, ...w }) => w);
    }
    if (!live) return NO_WORKERS;
    return live.map((w) => {
      const ownLease = lease && lease.holder === w.name && lease.expiresAt > now;
      const phase = w.phase === 'holding' && !ownLease ? 'expired' : w.phase;
      return {
        id: w.id,
        name: w.name,
        phase,
        alive: w.alive,
        armed: w.armed,
        ...(w.token === undefined ? {} : { token: w.token }),
        ...(w.remote ? { remote: true } : {}),
      };
    });
  }, [moment, events, live, lease, now]);
}
