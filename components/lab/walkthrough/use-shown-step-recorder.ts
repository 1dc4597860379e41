'use client';

import { useCallback, useMemo, useRef } from 'react';
import { recordWalkthroughStepAction } from '@/app/actions';
import type { ActionResult } from '@/lib/model/core/action-result';
import { useLabStore } from '../lab-store-provider';

/**
 * Records the step the trainer's page shows (lib/server/lab-commands.ts, recordWalkthroughStep),
 * which every watcher's page shows: one request at a time, in order, and only the newest of those
 * waiting. `settled` resolves once every step asked for is recorded: a reset waits for it, since a
 * record that reached the server after the reset would outlive it.
 */
export function useShownStepRecorder(
  /** How the step is recorded: the worker labs' command, unless the lab has its own (the failover lab's). */
  send?: (step: number) => Promise<ActionResult<unknown>>,
) {
  const lab = useLabStore((s) => s.lab);
  const notify = useLabStore((s) => s.notify);
  const queue = useRef<Promise<void>>(Promise.resolve());
  const newest = useRef(0);

  const record = useCallback(
    (step: number) => {
      const mine = ++newest.current;
      queue.current = queue.current.then(async () => {
        if (mine !== newest.current) return;
        const failed = `The room's pages could not be shown step ${step + 1}`;
        try {
          const result = await (send ? send(step) : recordWalkthroughStepAction({ lab, step }));
          if (!result.ok) notify('error', `${failed}: ${result.error.message}`);
        } catch {
          // The action threw only if the server could not be reached: its refusals come back as results.
          notify('error', `${failed}: the server could not be reached`);
        }
      });
    },
    [lab, notify, send],
  );
  const settled = useCallback(() => queue.current, []);
  return useMemo(() => ({ record, settled }), [record, settled]);
}
