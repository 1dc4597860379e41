'use client';

import type { RefObject } from 'react';
import type { DetailsHint } from '../timeline/mark-details';
import { useChecked } from '../verdict-banner';
import { useShrinkToFit } from './use-shrink-to-fit';

/** The timeline's hint under its lanes, longest first. */
const HINTS = ['full', 'brief', 'none'] as const satisfies readonly DetailsHint[];

/** At most as many violations as the lab page lists. */
const MOST_LISTED = 5;

/**
 * What the drawing's column (`room`) holds without a scroll: the checker's verdict lists the first
 * violations and "…and 9 more", down to the count alone; then the timeline's hint under its lanes is
 * said in one line, then left out (a mark's words still show there when one is chosen). A broken
 * lab's list grows while the trainer talks; the timeline's lanes (the database's too) stay on screen.
 */
export function useDrawingFit(room: RefObject<HTMLElement | null>) {
  const { verdict } = useChecked();
  const most = Math.min(MOST_LISTED, verdict.violations.length);
  const fewer = useShrinkToFit(room, most + HINTS.length - 1, `${verdict.violations.length}:${verdict.checked.writes}`);
  return { listed: Math.max(0, most - fewer), hint: HINTS[Math.max(0, fewer - most)] ?? 'none' };
}
