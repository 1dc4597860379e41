'use client';

import { useCallback, useMemo, useState } from 'react';
import {
  crashWorkerAction,
  holdConnectionAction,
  pauseWorkerAction,
  releaseConnectionAction,
  resetLabAction,
  restartWorkerAction,
  resumeWorkerAction,
  startWorkerAction,
} from '@/app/actions';
import type { ActionResult } from '@/lib/model/core/action-result';
import { useLabStore } from '../lab-store-provider';

export type StartSettings = { name: string; leaseTtlMs: number; renewEveryMs: number; writeEveryMs: number };
export type PauseMode = 'for' | 'until-resumed' | 'critical-window';

/**
 * The lab's commands as the controls, the shortcuts and the walkthrough use them: each one calls
 * a server action and reports what happened (or the server's error) in the notice area.
 */
export function useLabCommands() {
  const lab = useLabStore((s) => s.lab);
  const notify = useLabStore((s) => s.notify);
  const [busy, setBusy] = useState(false);

  const run = useCallback(
    async <T>(
      label: string,
      action: () => Promise<ActionResult<T>>,
      done: (data: T) => string,
    ): Promise<T | undefined> => {
      setBusy(true);
      try {
        const result = await action();
        if (result.ok) {
          notify('ok', done(result.data));
          return result.data;
        }
        notify('error', `${label}: ${result.error.message}`);
        return undefined;
      } catch {
        // The action threw only if the server could not be reached: its refusals come back as results.
        notify('error', `${label}: the server could not be reached`);
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [notify],
  );

  return useMemo(
    () => ({
      busy,
      start: (settings: StartSettings) =>
        run(
          'Start',
          () => startWorkerAction({ lab, settings }),
          (w) => `Started ${w.name} (${w.id}).`,
        ),
      pause: (worker: string, mode: PauseMode, seconds?: number) =>
        run(
          'Pause',
          () =>
            pauseWorkerAction({
              lab,
              worker,
              plan:
                mode === 'until-resumed'
                  ? { mode }
                  : mode === 'for'
                    ? { mode, seconds }
                    : { mode, ...(seconds ? { seconds } : {}) },
            }),
          (w) =>
            mode === 'critical-window'
              ? `${w.name} will freeze between its lease check and its next write${seconds ? ` for ${seconds} s` : ''}.`
              : `${w.name} is frozen${mode === 'for' ? ` for ${seconds} s` : ' until resumed'}.`,
        ),
      resume: (worker: string) =>
        run(
          'Resume',
          () => resumeWorkerAction({ lab, worker }),
          (w) => `${w.name} resumed.`,
        ),
      crash: (worker: string) =>
        run(
          'Crash',
          () => crashWorkerAction({ lab, worker }),
          (w) => `${w.name} was killed (SIGKILL).`,
        ),
      restart: (worker: string) =>
        run(
          'Restart',
          () => restartWorkerAction({ lab, worker }),
          (w) => `${w.name} restarted.`,
        ),
      hold: (worker: string) =>
        run(
          'Hold',
          () => holdConnectionAction({ lab, worker }),
          (r) => `Holding: ${r.message}.`,
        ),
      release: (worker: string) =>
        run(
          'Release',
          () => releaseConnectionAction({ lab, worker }),
          (r) => `Released: ${r.message}.`,
        ),
      reset: () =>
        run(
          'Reset',
          () => resetLabAction({ lab }),
          () => 'The lab was reset: workers stopped, row and history cleared.',
        ),
    }),
    [busy, lab, run],
  );
}
