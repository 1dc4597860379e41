'use client';

import { useEffect, useRef } from 'react';
import { useLabStore, useLabStoreApi } from '../lab-store-provider';

const SHORTCUTS: Array<[string, string]> = [
  ['N', 'start a worker'],
  ['P', 'pause the selected worker for the pause length'],
  ['U', 'pause it until resumed'],
  ['W', 'freeze it before its next write (the critical window)'],
  ['R', 'resume it'],
  ['K', 'crash it (SIGKILL)'],
  ['T', 'restart it'],
  ['X', 'reset the lab'],
  ['[ ]', 'select the previous / next worker'],
  ['+ −', 'zoom the timeline in / out'],
  ['← →', 'pan the timeline'],
  ['F', 'follow now'],
];

type Actions = Record<
  'start' | 'pauseFor' | 'pauseUntilResumed' | 'armCritical' | 'resume' | 'crash' | 'restart' | 'reset',
  () => unknown
>;

/** Single-key shortcuts, ignored while typing in a field. */
export function useShortcuts(actions: Actions): void {
  const store = useLabStoreApi();
  const latest = useRef(actions);
  latest.current = actions;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
      // A modal dialog open (the reset's question): its keys are its own.
      if (document.querySelector('dialog[open]')) return;
      const state = store.getState();
      const now = Date.now() + state.clockOffsetMs;
      const workers = state.snapshot?.workers ?? [];
      const index = workers.findIndex((w) => w.id === state.selectedWorker);
      const keys = new Map<string, () => unknown>([
        ['n', latest.current.start],
        ['p', latest.current.pauseFor],
        ['u', latest.current.pauseUntilResumed],
        ['w', latest.current.armCritical],
        ['r', latest.current.resume],
        ['k', latest.current.crash],
        ['t', latest.current.restart],
        ['x', latest.current.reset],
        ['[', () => workers.length && state.selectWorker(workers[(index - 1 + workers.length) % workers.length]?.id)],
        [']', () => workers.length && state.selectWorker(workers[(index + 1) % workers.length]?.id)],
        ['+', () => state.zoom(0.5)],
        ['=', () => state.zoom(0.5)],
        ['-', () => state.zoom(2)],
        ['arrowleft', () => state.pan(-state.windowMs / 4, now)],
        ['arrowright', () => state.pan(state.windowMs / 4, now)],
        ['f', state.follow],
      ]);
      const run = keys.get(event.key.toLowerCase());
      if (!run) return;
      event.preventDefault();
      run();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store]);
}

export function ShortcutsHelp() {
  const connection = useLabStore((s) => s.connection);
  return (
    <details className="text-sm">
      <summary className="cursor-pointer font-medium">Keyboard shortcuts</summary>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
        {SHORTCUTS.map(([key, what]) => (
          <div key={key} className="contents">
            <dt>
              <kbd className="rounded border border-slate-300 px-1.5 font-mono dark:border-slate-700">{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <p className="mt-2 text-slate-600 dark:text-slate-400">Live feed: {connection}</p>
    </details>
  );
}
