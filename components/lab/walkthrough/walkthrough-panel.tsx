'use client';

import Link from 'next/link';
import { useEffect } from 'react';
import { compareWith, type LabId } from '@/lib/model/lab/lab-kinds';
import { PollAsker } from '../../poll/poll-asker';
import { NoticeArea } from '../controls/notice-area';
import { controlButton } from '../controls/styles';
import { useLabRow } from './use-lab-row';
import { useStepFrame } from './use-step-frame';
import { useStepsReachedBy } from './use-steps-reached-by';
import { useWalkthrough } from './use-walkthrough';
import { narrationOf, offerOf } from './walkthrough-words';

/**
 * The narration: one step at a time, Next / Back / autoplay. Arriving runs nothing: it shows the
 * step the lab is at, or the one a deep link (?step=N) names, with a button that runs the steps up
 * to it.
 */
export function WalkthroughPanel({
  lab,
  labId,
  initialStep,
}: {
  lab: LabId;
  labId: string;
  /** From 0: the step a deep link names; undefined shows the step the lab is at. */
  initialStep: number | undefined;
}) {
  const walk = useWalkthrough(lab, initialStep);
  const row = useLabRow();
  // Every panel beside the narration shows the shown step's moment, or says it is live (off script, live).
  useStepFrame(useStepsReachedBy(lab), walk.steps.length, walk.framed, walk.run);
  const step = walk.steps[walk.shown];
  const complete = walk.position !== undefined && walk.pending.length === 0;
  const last = walk.shown === walk.steps.length - 1;
  const offer = offerOf(walk);
  const working = walk.status.kind === 'working';

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)) return;
      if (event.key === 'ArrowRight' && !event.shiftKey) void walk.next();
      if (event.key === 'ArrowLeft' && !event.shiftKey) walk.back();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [walk]);

  return (
    <section
      aria-labelledby="walkthrough-heading"
      className="space-y-2 rounded-lg border border-sky-300 bg-sky-50 p-3 dark:border-sky-800 dark:bg-sky-950"
    >
      <p className="text-sm font-medium text-sky-900 dark:text-sky-200">
        Step {walk.shown + 1} of {walk.steps.length}
      </p>
      <h2 id="walkthrough-heading" className="text-xl font-bold">
        {step?.title}
      </h2>
      <p className="min-h-36 text-lg leading-snug" data-testid="narration">
        {narrationOf(walk, row)}
      </p>
      {offer.note || offer.run ? (
        <div className="space-y-2 rounded-md border border-sky-300 bg-white p-2 dark:border-sky-800 dark:bg-slate-900">
          {offer.note ? (
            <p className="text-base" data-testid="walkthrough-where">
              {offer.note}
            </p>
          ) : null}
          {offer.run ? (
            <button type="button" className={controlButton} onClick={() => void walk.runToShown()} disabled={working}>
              {offer.run}
            </button>
          ) : null}
        </div>
      ) : null}
      <p role="status" className="min-h-6 text-base text-slate-700 dark:text-slate-300">
        {walk.status.kind === 'working' ? `Waiting for ${walk.status.what}…` : ''}
      </p>
      {walk.status.kind === 'failed' ? (
        <p role="alert" className="font-semibold text-rose-800 dark:text-rose-300">
          The step did not complete: {walk.status.message}.
        </p>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        <button type="button" className={controlButton} onClick={walk.back} disabled={walk.shown === 0}>
          Back
        </button>
        <button
          type="button"
          className={controlButton}
          onClick={() => void walk.next()}
          disabled={(last && complete) || working || walk.reached === undefined}
        >
          Next
        </button>
        <button
          type="button"
          className={controlButton}
          aria-pressed={walk.autoplay}
          onClick={() => walk.setAutoplay((on) => !on)}
        >
          Autoplay
        </button>
        <button type="button" className={controlButton} onClick={() => void walk.restart()} disabled={working}>
          Start over
        </button>
      </div>
      <NoticeArea />
      <PollAsker
        steps={walk.steps}
        shown={walk.shown}
        facts={walk.facts}
        ready={complete && !working && (walk.reached ?? -1) >= 0}
      />
      {last && complete ? <AfterTheEnd lab={lab} labId={labId} /> : null}
      <p className="text-sm text-slate-600 dark:text-slate-400">← → step back and forward.</p>
    </section>
  );
}

function AfterTheEnd({ lab, labId }: { lab: LabId; labId: string }) {
  const other = compareWith(lab);
  return (
    <p className="text-base">
      {other.lead}{' '}
      <Link className="font-semibold underline" href={`/labs/${other.lab}/walkthrough`}>
        {other.words}
      </Link>
      . Or{' '}
      <Link className="font-semibold underline" href={`/labs/${labId}`}>
        drive this lab yourself
      </Link>
      .
    </p>
  );
}
