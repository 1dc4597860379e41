'use client';

import { useCallback } from 'react';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import { PresenterPoll, usePresenterPoll } from '../../poll/presenter-poll';
import { useLabCommands } from '../controls/use-lab-commands';
import { LabStoreProvider, useLabStoreApi } from '../lab-store-provider';
import { useLabRow } from '../walkthrough/use-lab-row';
import { useStepFrame } from '../walkthrough/use-step-frame';
import { useStepsReachedBy } from '../walkthrough/use-steps-reached-by';
import { useWalkthrough } from '../walkthrough/use-walkthrough';
import { useWatchedStep } from '../walkthrough/use-watched-step';
import { narrationOf, offerOf } from '../walkthrough/walkthrough-words';
import { PresenterStage } from './presenter-stage';

/**
 * Presenter mode: the walkthrough for a room. The trainer drives it (the same real steps as the
 * walkthrough page); a watcher's narration is the step the trainer shows, as the lab records it.
 * Opening or reloading it runs nothing: both come back at the step the trainer showed.
 */
export function PresenterView(props: {
  lab: LabSummary;
  canDrive: boolean;
  subtitle: string;
  /** From 0: the step a deep link (?step=N) shows, with an offer to run the steps up to it. */
  initialStep: number | undefined;
}) {
  return (
    <LabStoreProvider lab={props.lab} canDrive={props.canDrive}>
      {props.canDrive ? <DrivenPresenter {...props} /> : <WatchedPresenter {...props} />}
    </LabStoreProvider>
  );
}

function DrivenPresenter({
  lab,
  subtitle,
  initialStep,
}: {
  lab: LabSummary;
  subtitle: string;
  initialStep: number | undefined;
}) {
  const walk = useWalkthrough(lab.kind, initialStep);
  const row = useLabRow();
  const commands = useLabCommands();
  const store = useLabStoreApi();
  const step = walk.steps[walk.shown];
  const offer = offerOf(walk);
  const working = walk.status.kind === 'working';
  useStepFrame(useStepsReachedBy(lab.kind), walk.steps.length, walk.framed, walk.run);
  const poll = usePresenterPoll({
    steps: walk.steps,
    shown: walk.shown,
    facts: walk.facts,
    // As the walkthrough page's Ask the room: the step shown is the lab's latest, in this run (not one gone back to).
    ready:
      walk.position !== undefined &&
      walk.pending.length === 0 &&
      !working &&
      (walk.reached ?? -1) >= 0 &&
      walk.shown === walk.reached,
  });

  const selected = useCallback(() => {
    const { snapshot, selectedWorker, notify } = store.getState();
    const worker = snapshot?.workers.find((w) => w.id === selectedWorker);
    if (!worker) notify('error', 'No worker is selected: start one with →, or pick one with 1–8');
    return worker;
  }, [store]);

  const { next, back, setAutoplay, autoplay, restart } = walk;
  return (
    <PresenterStage
      lab={lab}
      subtitle={subtitle}
      narration={{
        step: walk.shown + 1,
        steps: walk.steps.length,
        title: step?.title ?? '',
        text: narrationOf(walk, row),
        status: walk.status,
        note: offer.note,
      }}
      drive={{
        narration: {
          next,
          back,
          canNext:
            (walk.shown < walk.steps.length - 1 || walk.pending.length > 0) && !working && walk.reached !== undefined,
          canBack: walk.shown > 0,
          autoplay,
          atEnd: walk.shown === walk.steps.length - 1 && walk.pending.length === 0 && !working,
          toggleAutoplay: () => setAutoplay((on) => !on),
          startOver: { run: restart, disabled: working },
          offer: offer.run ? { label: offer.run, run: walk.runToShown, disabled: working } : undefined,
        },
        togglePause: () => {
          const worker = selected();
          if (!worker) return;
          return worker.phase === 'paused' ? commands.resume(worker.id) : commands.pause(worker.id, 'until-resumed');
        },
        // The lab page's W, until resumed (P, or R): one freeze at a time, as there.
        freezeBeforeWrite: () => {
          const worker = selected();
          if (!worker) return;
          if (worker.phase === 'paused') {
            store.getState().notify('error', `${worker.name} is frozen already: R resumes it`);
            return;
          }
          return commands.pause(worker.id, 'critical-window');
        },
        resume: () => {
          const worker = selected();
          return worker && commands.resume(worker.id);
        },
        askOrReveal: poll.askOrReveal,
      }}
      poll={<PresenterPoll />}
    />
  );
}

function WatchedPresenter({ lab, subtitle }: { lab: LabSummary; subtitle: string }) {
  const view = useWatchedStep(lab.kind);
  useStepFrame(useStepsReachedBy(lab.kind), view.steps, view.step === undefined ? undefined : view.step - 1);
  return (
    <PresenterStage
      lab={lab}
      subtitle={subtitle}
      narration={{ ...view, status: { kind: 'idle' } }}
      drive={undefined}
      poll={<PresenterPoll />}
    />
  );
}
