'use client';

import { useEffect, useRef } from 'react';

/** The presenter's keys, as the help lists them; `aria` is the aria-keyshortcuts value of the control. */
export const PRESENTER_KEYS = [
  { keys: '→', aria: 'ArrowRight', what: 'next step (runs it on the real lab)', drives: true },
  { keys: '←', aria: 'ArrowLeft', what: 'previous step (its narration again)', drives: true },
  { keys: 'Space', aria: 'Space', what: 'play / pause the walkthrough', drives: true },
  { keys: 'P', aria: 'P', what: 'pause the selected worker until resumed; P again resumes it', drives: true },
  { keys: 'R', aria: 'R', what: 'resume the selected worker', drives: true },
  {
    keys: 'Q',
    aria: 'Q',
    what: 'ask the room the question about the next step; Q again reveals the answers',
    drives: true,
  },
  { keys: '1–8', aria: '1 2 3 4 5 6 7 8', what: 'select a worker', drives: false },
  { keys: 'F', aria: 'F', what: 'full screen on / off', drives: false },
  { keys: '?', aria: 'Shift+?', what: 'show / hide this help', drives: false },
  { keys: 'Esc', aria: 'Escape', what: 'close this help, or leave presenter mode', drives: false },
] as const;

export type DriveKeys = {
  next: () => unknown;
  back: () => unknown;
  toggleAutoplay: () => unknown;
  togglePause: () => unknown;
  resume: () => unknown;
  askOrReveal: () => unknown;
};

export type PresenterKeyHandlers = {
  /** Undefined for a watcher: the driving keys are then refused, and `refused` says so. */
  drive: DriveKeys | undefined;
  refused: (key: string) => void;
  selectWorker: (index: number) => void;
  toggleFullscreen: () => void;
  toggleHelp: () => void;
  /** Closes the help if it is open; false when there was nothing to close. */
  closeHelp: () => boolean;
  exit: () => void;
};

/** Where a key belongs to the element (typing, or Space pressing a focused button), not to us. */
function ownsKey(target: EventTarget | null, key: string): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)) return true;
  return key === ' ' && target.closest('button, a, summary, [role="button"]') !== null;
}

/**
 * The presenter's single-key hotkeys on the window. The free-play shortcuts (controls/shortcuts.tsx)
 * are not mounted on this page, so each key has exactly one meaning here.
 */
export function usePresenterKeys(handlers: PresenterKeyHandlers): void {
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      if (ownsKey(event.target, event.key)) return;
      const h = latest.current;
      const driving = (label: string, run: (drive: DriveKeys) => unknown) => () =>
        h.drive ? run(h.drive) : h.refused(label);
      const digit = /^[1-8]$/.test(event.key) ? Number(event.key) : undefined;
      const action =
        digit !== undefined
          ? () => h.selectWorker(digit - 1)
          : new Map<string, () => unknown>([
              ['arrowright', driving('→', (d) => d.next())],
              ['arrowleft', driving('←', (d) => d.back())],
              [' ', driving('Space', (d) => d.toggleAutoplay())],
              ['p', driving('P', (d) => d.togglePause())],
              ['r', driving('R', (d) => d.resume())],
              ['q', driving('Q', (d) => d.askOrReveal())],
              ['f', h.toggleFullscreen],
              ['?', h.toggleHelp],
              ['escape', () => h.closeHelp() || h.exit()],
            ]).get(event.key.toLowerCase());
      if (!action) return;
      event.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
