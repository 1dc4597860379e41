'use client';

import { useCallback, useMemo, useRef, useState } from 'react';
import type { Timeline } from '@/lib/model/timeline/timeline';
import type { MarkText } from '@/lib/model/timeline/timeline-layout';
import { useLabStore } from '../lab-store-provider';
import { type Move, neighbour } from './mark-neighbours';

/** A focused mark is kept this far (a share of the window) inside the view's edges. */
const FOCUS_MARGIN = 0.1;

type View = { start: number; end: number; windowMs: number; viewEnd: number | undefined; now: number };

/**
 * The keyboard's place among the marks: kept while the list is left (the roving tab stop), drawn
 * with a ring while the list has the focus. A move selects the mark (the details panel says it) and
 * pans the view to keep it on screen.
 */
export function useMarkFocus(
  full: Timeline,
  flagged: ReadonlySet<number>,
  listed: readonly MarkText[],
  laneIndex: ReadonlyMap<string, number>,
  view: View,
) {
  const selectMark = useLabStore((s) => s.selectMark);
  const pan = useLabStore((s) => s.pan);
  const holdView = useLabStore((s) => s.holdView);
  const [focus, setFocus] = useState<{ mark: MarkText; inList: boolean; pending: boolean } | undefined>();

  // The list's items: the stretch's marks, and the focused one when the view moved away from it,
  // while it is still in the history (a reset takes it away).
  const items = useMemo(() => {
    const held =
      focus &&
      (focus.mark.kind === 'row'
        ? full.row.length > 0
        : focus.mark.kind === 'lab'
          ? full.labMarks.length > 0
          : laneIndex.has(focus.mark.lane));
    if (!focus || !held || listed.some((m) => m.key === focus.mark.key)) return listed;
    return [...listed, focus.mark];
  }, [listed, focus, laneIndex, full.row.length, full.labMarks.length]);

  const moveNow = (move: Move) => {
    const target = neighbour(full, focus?.mark, move, flagged);
    if (!target) return;
    setFocus({ mark: target, inList: true, pending: true });
    selectMark(target.key);
    const { start, end, windowMs, viewEnd, now } = view;
    const margin = windowMs * FOCUS_MARGIN;
    const wanted =
      target.at < start + margin
        ? target.at - margin + windowMs
        : target.at > end - margin
          ? target.at + margin
          : undefined;
    if (wanted === undefined) return;
    // From a step's frame too: the window shown is the one panned.
    holdView(windowMs, viewEnd ?? now);
    pan(wanted - (viewEnd ?? now), now);
  };
  // Stable callbacks, so that the list is not drawn again at each tick of the clock.
  const latestMove = useRef(moveNow);
  latestMove.current = moveNow;
  const onMove = useCallback((move: Move) => latestMove.current(move), []);
  const onFocusMark = useCallback(
    (mark: MarkText) => {
      setFocus({ mark, inList: true, pending: false });
      selectMark(mark.key);
    },
    [selectMark],
  );
  const onLeave = useCallback(() => setFocus((f) => f && { ...f, inList: false, pending: false }), []);
  return { focus, items, onMove, onFocusMark, onLeave };
}
