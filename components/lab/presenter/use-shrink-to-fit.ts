'use client';

import { type RefObject, useEffect, useLayoutEffect, useState } from 'react';

/**
 * How far a box's content must be shortened for the box not to scroll: 0 is the content in full, and
 * each level one step shorter (a smaller type, one violation fewer listed), up to `max`. The caller
 * renders the level; while the box (`room`) still overflows, the next level is rendered before the
 * screen is painted. A new `content` (another step, another verdict), or the box or any of its
 * children changing size (the keys' help opened, a lane added), starts again from the content in full,
 * so a box that grew gets its words back.
 */
export function useShrinkToFit(room: RefObject<HTMLElement | null>, max: number, content: string): number {
  const [state, setState] = useState({ content, level: 0, generation: 0 });
  const level = state.content === content ? Math.min(state.level, max) : 0;

  // Every render: the level just drawn either fits, or the next one is drawn before the paint.
  useLayoutEffect(() => {
    const box = room.current;
    if (!box || level >= max || box.scrollHeight <= box.clientHeight + 1) return;
    setState((s) => ({ ...s, content, level: level + 1 }));
  });

  useEffect(() => {
    const box = room.current;
    if (!box) return;
    const seen = new Set<Element>();
    const observer = new ResizeObserver((entries) => {
      // Every element is reported once when first observed: that is no change.
      let changed = false;
      for (const entry of entries) {
        if (seen.has(entry.target)) changed = true;
        seen.add(entry.target);
      }
      if (changed) setState((s) => ({ ...s, level: 0, generation: s.generation + 1 }));
    });
    observer.observe(box);
    for (const child of box.children) observer.observe(child);
    return () => observer.disconnect();
  }, [room]);

  return level;
}
