'use client';

import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { WireEvent } from '@/lib/model/core/wire';
import { type ReplayBounds, storyBounds } from '@/lib/model/history/replay';
import { storySpan } from '@/lib/model/history/story-span';
import type { LabId } from '@/lib/model/lab/lab-kinds';
import type { LabStoreApi } from '../lab/lab-store';

/*
 * Two lab stores on one time axis: ms since each run's story began (its first grant: storyBounds). Both are replayed at the same
 * offset from their own start (the shared moment), and a zoom or a pan of either timeline is copied to
 * the other, shifted by the difference of their starts, so the two drawings stay lined up.
 */

const NO_EVENTS: readonly WireEvent[] = [];
/** The fitted window: the longer run and a little more, within the timeline's own zoom bounds. */
const FIT_MARGIN = 1.15;
const FIT_MIN_MS = 2_000;
const FIT_MAX_MS = 10 * 60_000;
/** How far before each run's first event its timeline starts, as a share of the window. */
const FIT_LEAD = 0.05;
const noSubscription = () => () => undefined;

/** A store's events, or none while the side is not chosen. */
export function useEventsOf(store: LabStoreApi | undefined): readonly WireEvent[] {
  return useSyncExternalStore(
    store ? store.subscribe : noSubscription,
    () => store?.getState().events ?? NO_EVENTS,
    () => NO_EVENTS,
  );
}

type Side = { store: LabStoreApi | undefined; events: readonly WireEvent[]; kind: LabId | undefined };

export type SharedAxis = {
  /** 0 to the longer run's length, in ms. */
  bounds: ReplayBounds;
  moment: number;
  /** The moment follows the end of the longer run as events arrive. */
  following: boolean;
  move: (offsetMs: number) => void;
  follow: () => void;
  startOf: (side: 'a' | 'b') => number | undefined;
};

export function useSharedAxis(a: Side, b: Side): SharedAxis {
  const boundsA = storyBounds(a.events);
  const boundsB = storyBounds(b.events);
  const span = Math.max(0, ...[boundsA, boundsB].map((x) => (x ? x.to - x.from : 0)));
  // The view is fitted to the longer story (first grant to the walkthrough's last step), not to the
  // whole runs: a lab that went on for minutes after its story, or a fork beside an hour-long
  // original, would otherwise show its story as a sliver at the left of a 10-minute window.
  const storyMs = Math.max(
    0,
    ...[a, b].map((side) => {
      const story = side.kind ? storySpan(side.kind, side.events) : storyBounds(side.events);
      return story ? story.to - story.from : 0;
    }),
  );
  const [chosen, setChosen] = useState<number | undefined>(undefined);
  const moment = Math.min(chosen ?? span, span);
  const starts = useRef({ a: boundsA?.from, b: boundsB?.from });
  starts.current = { a: boundsA?.from, b: boundsB?.from };

  const [fromA, fromB] = [boundsA?.from, boundsB?.from];
  useEffect(() => {
    for (const [store, from] of [
      [a.store, fromA],
      [b.store, fromB],
    ] as const) {
      if (store && from !== undefined && store.getState().replayAt !== from + moment) {
        store.getState().replayTo(from + moment);
      }
    }
  }, [a.store, b.store, fromA, fromB, moment]);

  // Both timelines show the whole of the longer run, until a person zooms: then their zoom stands
  // (until another history is chosen).
  const fitted = useRef<{ a?: LabStoreApi; b?: LabStoreApi; windowMs: number } | undefined>(undefined);
  useEffect(() => {
    const stores = [a.store, b.store].filter((store) => store !== undefined);
    if (stores.length === 0 || span === 0) return;
    const last = fitted.current;
    const sameHistories = last?.a === a.store && last?.b === b.store;
    if (sameHistories && stores.some((store) => store.getState().windowMs !== last?.windowMs)) return;
    const windowMs = Math.min(FIT_MAX_MS, Math.max(FIT_MIN_MS, Math.round((storyMs || span) * FIT_MARGIN)));
    fitted.current = { ...(a.store ? { a: a.store } : {}), ...(b.store ? { b: b.store } : {}), windowMs };
    // Each run's first event a little after the left edge, the longer run's end a little before the right.
    const lead = windowMs * FIT_LEAD;
    for (const [store, from] of [
      [a.store, fromA],
      [b.store, fromB],
    ] as const) {
      if (store) store.setState({ windowMs, viewEnd: from === undefined ? undefined : from - lead + windowMs });
    }
  }, [a.store, b.store, span, storyMs, fromA, fromB]);

  // A zoom or pan of one timeline, copied to the other.
  useEffect(() => {
    const [left, right] = [a.store, b.store];
    if (!left || !right) return;
    const mirror = (from: LabStoreApi, to: LabStoreApi, shift: () => number | undefined) =>
      from.subscribe((state, previous) => {
        const target = to.getState();
        if (state.windowMs !== previous.windowMs && target.windowMs !== state.windowMs) {
          to.setState({ windowMs: state.windowMs });
        }
        const by = shift();
        if (state.viewEnd !== previous.viewEnd && by !== undefined) {
          const viewEnd = state.viewEnd === undefined ? undefined : state.viewEnd + by;
          if (target.viewEnd !== viewEnd) to.setState({ viewEnd });
        }
      });
    const aToB = () => {
      const { a: x, b: y } = starts.current;
      return x === undefined || y === undefined ? undefined : y - x;
    };
    const bToA = () => {
      const by = aToB();
      return by === undefined ? undefined : -by;
    };
    const stops = [mirror(left, right, aToB), mirror(right, left, bToA)];
    return () => {
      for (const stop of stops) stop();
    };
  }, [a.store, b.store]);

  return {
    bounds: { from: 0, to: span },
    moment,
    following: chosen === undefined,
    move: useCallback((offsetMs: number) => setChosen(offsetMs), []),
    follow: useCallback(() => setChosen(undefined), []),
    startOf: (side) => starts.current[side],
  };
}
