'use client';

import { useEffect, useRef, useState } from 'react';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import { LabStoreProvider, useLabStoreApi } from '../lab-store-provider';
import { PresenterStage } from '../presenter/presenter-stage';
import { useShownStepRecorder } from '../walkthrough/use-shown-step-recorder';
import type { WalkthroughStatus } from '../walkthrough/use-walkthrough';
import { recordFailoverShownStep, runFailoverAction } from './failover-actions';
import { FailoverServers } from './failover-servers';
import { useFailoverProgress, useFailoverStepFrame, useFollowedStep } from './use-failover-progress';
import { useFailoverServers } from './use-failover-servers';

/**
 * The failover lab in presenter mode, on the one presenter stage (the timeline at the presenter's
 * measures, the narration, the keys): → runs the lab's next step for real and shows it, told from
 * its record; ← shows the one before, and every panel shows the lab as of the step shown. The step
 * the trainer shows is recorded for the watchers' pages, which show it (never past what the lab has
 * done). Opening or reloading runs nothing; `initialStep` (from 1, a deep link) shows that step and
 * offers to run the steps up to it. It has no workers: no strip, no P or R, no autoplay.
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
  const { walkthrough, progress, reached, otherStory, wordsOf, reachedBy } = useFailoverProgress(mode);
  const { view: servers, refresh } = useFailoverServers();
  const recorder = useShownStepRecorder(recordFailoverShownStep);
  const followed = useFollowedStep(canDrive, progress, reached);
  const [chosen, setChosen] = useState<number | undefined>(initialStep);
  const [status, setStatus] = useState<WalkthroughStatus>({ kind: 'idle' });
  // The trainer's page shows the step it chose (a deep link's, or the one it ran last); a watcher's, the trainer's.
  const shown = Math.min(canDrive ? (chosen ?? followed) : followed, walkthrough.length);
  const step = walkthrough[shown - 1];
  const working = status.kind === 'working';
  useFailoverStepFrame(reachedBy, walkthrough.length, shown, progress);
  const noWorkers = () => store.getState().notify('error', 'The failover lab has no workers to pause or resume');

  /** The trainer moved to step `n` (from 1): shown here, and recorded for the watchers' pages. */
  const show = (n: number) => {
    setChosen(n);
    recorder.record(n - 1);
  };

  // The last step run: until the lab's record of it reaches this page, → waits rather than runs it twice.
  const ranTo = useRef(0);
  /** Runs the walkthrough's steps `from` to `to` (from 1), one after another, showing `to`; stops at a refusal. */
  const run = async (from: number, to: number) => {
    setChosen(to);
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
      ranTo.current = n;
    }
    setStatus({ kind: 'idle' });
    recorder.record(to - 1);
  };

  // A → pressed while a step runs, or before its record has reached this page, is kept and acted on
  // once it has (rather than lost, or the step run twice); a step that failed drops it.
  const queued = useRef(false);
  const next = () => {
    if (working || progress < ranTo.current) {
      queued.current = true;
      return;
    }
    if (shown > progress) return void run(progress + 1, shown);
    const upcoming = walkthrough[shown];
    if (!upcoming) return;
    if (upcoming.action && shown === progress) return void run(shown + 1, shown + 1);
    show(shown + 1);
  };
  useEffect(() => {
    if (!queued.current || working) return;
    if (status.kind === 'failed') {
      queued.current = false;
      return;
    }
    if (progress < ranTo.current) return;
    queued.current = false;
    next();
  });
  const done = wordsOf(shown - 1).done;
  const text = done
    ? wordsOf(shown - 1).text
    : otherStory && shown === 1
      ? otherStoryText(otherStory, mode)
      : (step?.preview ?? '');
  return (
    <PresenterStage
      lab={lab}
      subtitle={`Presenter: Failover (${mode === 'sync' ? 'synchronous' : 'asynchronous'} replication)`}
      narration={{
        step: shown,
        steps: walkthrough.length,
        title: step?.title ?? '',
        text,
        status,
        note: shown > progress + 1 ? `The lab is at step ${progress}.` : undefined,
      }}
      drive={
        canDrive
          ? {
              narration: {
                next,
                back: () => show(Math.max(1, shown - 1)),
                canNext: !working && shown < walkthrough.length,
                canBack: shown > 1,
                autoplay: false,
                atEnd: shown === walkthrough.length && done && !working,
                toggleAutoplay: () =>
                  store.getState().notify('error', 'The failover lab has no autoplay: → runs a step'),
                startOver: {
                  run: () => {
                    ranTo.current = 0;
                    void run(1, 1);
                  },
                  disabled: working,
                },
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
              freezeBeforeWrite: noWorkers,
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
