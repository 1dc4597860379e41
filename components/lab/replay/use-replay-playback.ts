'use client';

import { useEffect, useRef } from 'react';
import { advance, type ReplayBounds } from '@/lib/model/history/replay';
import { useLabStore, useLabStoreApi } from '../lab-store-provider';

/**
 * How often playback moves the moment: the timeline, tables and verdict are rebuilt at each move, so
 * twenty a second is smooth enough without rebuilding on every animation frame.
 */
const PLAY_STEP_MS = 50;

/** While playing, moves the replay moment with the wall clock at the chosen speed; stops at the end. */
export function useReplayPlayback(bounds: ReplayBounds | undefined): void {
  const playing = useLabStore((s) => s.replayPlaying);
  const store = useLabStoreApi();
  // Read at each step rather than restarting the loop: a live lab's end moves with every event.
  const boundsRef = useRef(bounds);
  boundsRef.current = bounds;

  useEffect(() => {
    if (!playing) return;
    let frame = 0;
    let last = performance.now();
    const step = (time: number) => {
      const range = boundsRef.current;
      const { replayAt, replaySpeed, replayTo, setReplayPlaying } = store.getState();
      if (!range) {
        setReplayPlaying(false);
        return;
      }
      if (time - last >= PLAY_STEP_MS) {
        const next = advance(replayAt ?? range.from, time - last, replaySpeed, range);
        last = time;
        replayTo(next);
        if (next >= range.to) {
          setReplayPlaying(false);
          return;
        }
      }
      frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [playing, store]);
}
