'use client';

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { LabId } from '@/lib/model/labs';
import { factsFrom, type Step, WALKTHROUGH_SETTINGS, walkthroughFor } from '@/lib/model/walkthrough';
import { useLabCommands } from '../controls/use-lab-commands';
import { useLabStore, useLabStoreApi } from '../lab-store-provider';

const STEP_TIMEOUT_MS = 30_000;
export const AUTOPLAY_READ_MS = 4_500;

export type WalkthroughStatus =
  | { kind: 'idle' }
  | { kind: 'working'; what: string }
  | { kind: 'failed'; message: string };

/**
 * Drives the real lab through the walkthrough's steps: each step's action goes through the same
 * server actions as the controls, and the step is complete when its event arrives on the live feed.
 */
export function useWalkthrough(lab: LabId, initialStep: number) {
  const steps = useMemo(() => walkthroughFor(lab), [lab]);
  const store = useLabStoreApi();
  const commands = useLabCommands();
  const events = useLabStore((s) => s.events);
  const [runMark, setRunMark] = useState<number | undefined>(undefined);
  const [shown, setShown] = useState(0);
  const [reached, setReached] = useState(-1);
  const [status, setStatus] = useState<WalkthroughStatus>({ kind: 'idle' });
  const [autoplay, setAutoplay] = useState(false);
  const running = useRef(false);

  const facts = useMemo(
    () => factsFrom(runMark === undefined ? [] : events.filter((e) => e.id > runMark)),
    [events, runMark],
  );

  const waitFor = useCallback(
    (step: Step, mark: number) =>
      new Promise<boolean>((resolve) => {
        const check = () => step.done(factsFrom(store.getState().events.filter((e) => e.id > mark)));
        if (check()) return resolve(true);
        const timer = setTimeout(() => {
          unsubscribe();
          resolve(false);
        }, STEP_TIMEOUT_MS);
        const unsubscribe = store.subscribe(() => {
          if (!check()) return;
          clearTimeout(timer);
          unsubscribe();
          resolve(true);
        });
      }),
    [store],
  );

  /** Runs step `index` for real; resolves false (with a message shown) if it did not complete. */
  const runStep = useCallback(
    async (index: number, mark: number | undefined): Promise<number | undefined> => {
      const step = steps[index];
      if (!step) return undefined;
      setStatus({ kind: 'working', what: step.waitingFor });
      const action = step.action;
      let currentMark = mark;
      if (action.kind === 'reset') {
        const ok = await commands.reset();
        if (!ok) return fail('the lab could not be reset');
        currentMark = store.getState().events.at(-1)?.id ?? 0;
        setRunMark(currentMark);
      } else if (action.kind === 'start') {
        if (!(await commands.start(WALKTHROUGH_SETTINGS[action.worker])))
          return fail(`${action.worker} could not start`);
      } else if (action.kind === 'freeze-before-write') {
        if (!(await commands.pause(action.worker, 'critical-window'))) return fail('A could not be frozen');
      } else if (action.kind === 'resume') {
        await commands.resume(action.worker);
      }
      if (!(await waitFor(step, currentMark ?? 0)))
        return fail(`nothing happened for ${STEP_TIMEOUT_MS / 1000} s while waiting for ${step.waitingFor}`);
      setReached(index);
      setShown(index);
      setStatus({ kind: 'idle' });
      return currentMark ?? 0;

      function fail(message: string) {
        setStatus({ kind: 'failed', message });
        return undefined;
      }
    },
    [commands, steps, store, waitFor],
  );

  const next = useCallback(async () => {
    if (running.current) return;
    if (shown < reached) return setShown(shown + 1);
    running.current = true;
    try {
      await runStep(reached + 1, runMark);
    } finally {
      running.current = false;
    }
  }, [reached, runMark, runStep, shown]);

  const back = useCallback(() => setShown((i) => Math.max(0, i - 1)), []);

  const restart = useCallback(async () => {
    if (running.current) return;
    running.current = true;
    setReached(-1);
    setShown(0);
    try {
      await runStep(0, undefined);
    } finally {
      running.current = false;
    }
  }, [runStep]);

  // Start (or a deep link): run every step up to the one asked for, for real. Once per page view
  // (a ref, not an effect clean-up, so that a development double-mount does not run it twice).
  const started = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once, on arrival.
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void (async () => {
      running.current = true;
      try {
        let mark: number | undefined;
        for (let i = 0; i <= Math.min(initialStep, steps.length - 1); i++) {
          mark = await runStep(i, mark);
          if (mark === undefined) return;
        }
      } finally {
        running.current = false;
      }
    })();
  }, []);

  // Autoplay: give a reader time on a completed step, then go on.
  useEffect(() => {
    if (!autoplay || status.kind !== 'idle' || shown >= steps.length - 1 || shown !== reached) return;
    const timer = setTimeout(() => void next(), AUTOPLAY_READ_MS);
    return () => clearTimeout(timer);
  }, [autoplay, next, reached, shown, status.kind, steps.length]);

  return { steps, shown, reached, facts, status, autoplay, setAutoplay, next, back, restart };
}
