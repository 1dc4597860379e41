'use client';

import { useEffect, useRef } from 'react';
import { type PresenterKeyHandlers, presenterKeyAction } from './presenter-key-map';

export { type DriveKeys, PRESENTER_KEYS, type PresenterKeyHandlers } from './presenter-key-map';

/** Where a key belongs to the element (typing, or Space pressing a focused button), not to us. */
function ownsKey(target: EventTarget | null, key: string): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)) return true;
  return key === ' ' && target.closest('button, a, summary, [role="button"]') !== null;
}

/**
 * The presenter's single-key hotkeys on the window (what each does: presenter-key-map.ts). The
 * free-play shortcuts (controls/shortcuts.tsx) are not mounted on this page, so each key has exactly
 * one meaning here.
 */
export function usePresenterKeys(handlers: PresenterKeyHandlers): void {
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      if (ownsKey(event.target, event.key)) return;
      const action = presenterKeyAction(event.key, latest.current);
      if (!action) return;
      event.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
