'use client';

import { useEffect, useRef, useState } from 'react';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import { LabStoreProvider, useLabStoreApi } from '../lab-store-provider';
import { PresenterStage } from '../presenter/presenter-stage';
import type { WalkthroughStatus } from '../walkthrough/use-walkthrough';
import { runFailoverAction } from './failover-actions';
import { FailoverServers } from './failover-servers';
import { useFailoverProgress } from './use-failover-progress';
import { useFailoverServers } from './use-failover-servers';

/**
 * The failover lab in presenter mode, on the one presenter stage (the timeline at the presenter's
 * measures, the narration, the keys): → runs the lab's next step for real, ← shows the one before.
 * Opening or reloading runs nothing; `initialStep` (from 1, a deep link) shows that step and offers
 * to run the steps up to it. It has no workers: no strip, no P or R, no autoplay.
 */
export function FailoverPresenter(props: {
  lab: LabSummary;
  mode: 'async' | 'sync';
  canDrive: boolean;
  initialStep: number | undefined;
}) {
  return (
    <LabStoreProvider lab={props.lab} canDrive={props.canDrive}>
      <Stage {...props} />
    </LabStoreProvider>
  );
}

function Stage({ lab, mode, canDrive, initialStep }: Parameters<typeof FailoverPresenter>[0]) {
  const store = useLabStoreApi();
  const { walkthrough, progress, otherStory, wordsOf } = useFailoverProgress(mode);
  const { view: servers, refresh } = useFailoverServers();
  const [chosen, setChosen] = useState<number | undefined>(initialStep);
  const [status, setStatus] = useState<WalkthroughStatus>({ kind: 'idle' });
  const shown = Math.min(chosen ?? progress + 1, walkthrough.length);
  const step = walkthrough[shown - 1];
  const working = status.kind === 'working';
  const noWorkers = () => store.getState().notify('error', 'The failover lab has no workers to pause or resume');

  const runningTo = useRef(0);
  /**
   * Runs the walkthrough's steps `from` to `to`, one after another; stops at a refusal. `show` (Start
   * over) is the step shown meanwhile and after.
   */
  const run = async (from: number, to: number, show?: number) => {
    // Once done, the view follows the lab again, unless the trainer moved meanwhile (← during a step).
    const chosenAtStart = show ?? chosen;
    if (show !== undefined) setChosen(show);
    runningTo.current = to;
    for (let n = from; n <= to; n++) {
      const action = walkthrough[n - 1]?.action;
      if (!action) break;
      setStatus({ kind: 'working', what: walkthrough[n - 1]?.title ?? '' });
      const result = await runFailoverAction(action);
      await refresh();
      if (!result.ok) {
        setStatus({ kind: 'failed', message: result.error.message });
        return;
      }
    }
    setStatus({ kind: 'idle' });
    setChosen((now) => (show === undefined && now === chosenAtStart ? undefined : now));
  };

  // A → pressed while a step's action has not returned yet (its events may already be on screen) is
  // kept, and runs once the step is done and its record has reached this page (the lab's progress past
  // it), rather than lost or run twice; a step that failed drops it.
  const queued = useRef<number | undefined>(undefined);
  const next = () => {
    if (working) {
      // The last step of the run under way: once the lab's record reaches it, → goes on from there.
      queued.current = runningTo.current;
      return;
    }
    if (shown <= progress) setChosen(shown + 1 > progress ? undefined : shown + 1);
    else if (step?.action) void run(progress + 1, shown);
  };
  useEffect(() => {
    if (working || queued.current === undefined) return;
    if (status.kind === 'failed') {
      queued.current = undefined;
      return;
    }
    if (progress < queued.current) return;
    queued.current = undefined;
    next();
  });
  const done = shown <= progress || (!step?.action && shown === progress + 1);
  return (
    <PresenterStage
      lab={lab}
      subtitle={`Presenter: Failover (${mode === 'sync' ? 'synchronous' : 'asynchronous'} replication)`}
      narration={{
        step: shown,
        steps: walkthrough.length,
        title: step?.title ?? '',
        text: done ? wordsOf(shown - 1).text : otherStory && shown === 1 ? otherStoryText(otherStory, mode) : '',
        status,
        note: shown > progress + 1 ? `The lab is at step ${progress}.` : undefined,
      }}
      drive={
        canDrive
          ? {
              narration: {
                next,
                back: () => setChosen(Math.max(1, shown - 1)),
                canNext: !working && (shown <= progress || Boolean(step?.action)),
                canBack: shown > 1,
                autoplay: false,
                toggleAutoplay: () =>
                  store.getState().notify('error', 'The failover lab has no autoplay: → runs a step'),
                startOver: { run: () => run(1, 1, 1), disabled: working },
                offer:
                  shown > progress + 1
                    ? {
                        label: `Run steps ${progress + 1} to ${shown}`,
                        run: () => run(progress + 1, shown),
                        disabled: working,
                      }
                    : undefined,
              },
              togglePause: noWorkers,
              resume: noWorkers,
              askOrReveal: () =>
                store.getState().notify('error', 'The failover lab asks the room no questions: use a worker lab'),
            }
          : undefined
      }
      tables={<FailoverServers view={servers} />}
      side={null}
      hints={
        <p className="text-base text-slate-700 dark:text-slate-300">
          <kbd>→</kbd> runs the next step · <kbd>←</kbd> the one before · <kbd>?</kbd> all keys
        </p>
      }
    />
  );
}

const storyName = (mode: 'async' | 'sync') => (mode === 'sync' ? 'synchronous' : 'asynchronous');

/** Step 1 of one mode's story while the lab's recorded story is the other mode's (read from its pair_started). */
function otherStoryText(told: 'async' | 'sync', mode: 'async' | 'sync'): string {
  return `Not run yet: this lab's last story used ${storyName(told)} replication. → starts the ${storyName(mode)} story with a new pair (the last story's history goes).`;
}
