'use client';

import { usePathname, useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo } from 'react';
import type { LabSummary } from '@/lib/model/lab-instance';
import { factsFrom, walkthroughFor } from '@/lib/model/walkthrough';
import { stepReachedBy } from '@/lib/model/walkthrough-progress';
import { useLabCommands } from '../controls/use-lab-commands';
import { LabStoreProvider, useLabStore, useLabStoreApi } from '../lab-store-provider';
import { useWalkthrough } from '../walkthrough/use-walkthrough';
import { PresenterStage } from './presenter-stage';

/**
 * Presenter mode: the walkthrough for a room. The trainer drives it (the same real steps as the
 * walkthrough page); a watcher's narration follows what happens on the lab, read from its events.
 */
export function PresenterView(props: {
  lab: LabSummary;
  canDrive: boolean;
  subtitle: string;
  /**
   * From 0: the step to run up to on arrival (a deep link, ?step=N); -1 runs nothing until → is
   * pressed, so that opening presenter mode in the middle of a session does not reset the lab.
   */
  initialStep: number;
}) {
  return (
    <LabStoreProvider lab={props.lab} canDrive={props.canDrive}>
      {props.canDrive ? <DrivenPresenter {...props} /> : <WatchedPresenter {...props} />}
    </LabStoreProvider>
  );
}

function DrivenPresenter({ lab, subtitle, initialStep }: { lab: LabSummary; subtitle: string; initialStep: number }) {
  const walk = useWalkthrough(lab.kind, initialStep);
  const commands = useLabCommands();
  const store = useLabStoreApi();
  const router = useRouter();
  const pathname = usePathname();
  const step = walk.steps[walk.shown];
  const complete = walk.shown <= walk.reached;

  // The address names the step shown, as on the walkthrough page: a reload comes back to it.
  useEffect(() => {
    if (walk.reached >= 0) router.replace(`${pathname}?step=${walk.shown + 1}`, { scroll: false });
  }, [walk.shown, walk.reached, pathname, router]);

  const selected = useCallback(() => {
    const { snapshot, selectedWorker, notify } = store.getState();
    const worker = snapshot?.workers.find((w) => w.id === selectedWorker);
    if (!worker) notify('error', 'No worker is selected: start one with →, or pick one with 1–8');
    return worker;
  }, [store]);

  const { next, back, setAutoplay, autoplay } = walk;
  return (
    <PresenterStage
      lab={lab}
      subtitle={subtitle}
      narration={{
        step: walk.shown + 1,
        steps: walk.steps.length,
        title: step?.title ?? '',
        text: complete && step ? step.narrate(walk.facts) : walk.reached < 0 ? READY_TEXT : '',
        status: walk.status,
      }}
      drive={{
        narration: {
          next,
          back,
          canNext: walk.shown < walk.steps.length - 1 && walk.status.kind !== 'working',
          canBack: walk.shown > 0,
          autoplay,
          toggleAutoplay: () => setAutoplay(!autoplay),
        },
        togglePause: () => {
          const worker = selected();
          if (!worker) return;
          return worker.phase === 'paused' ? commands.resume(worker.id) : commands.pause(worker.id, 'until-resumed');
        },
        resume: () => {
          const worker = selected();
          return worker && commands.resume(worker.id);
        },
      }}
    />
  );
}

const READY_TEXT =
  'Ready when you are: press → to begin. This step resets the lab (its workers stop, its history is cleared); until then it runs on as it is.';

function WatchedPresenter({ lab, subtitle }: { lab: LabSummary; subtitle: string }) {
  const steps = useMemo(() => walkthroughFor(lab.kind), [lab.kind]);
  const events = useLabStore((s) => s.events);
  // The store holds the events since the lab's last reset: the run a watcher can see.
  const facts = useMemo(() => factsFrom(events), [events]);
  const index = stepReachedBy(steps, facts);
  const step = steps[index];
  return (
    <PresenterStage
      lab={lab}
      subtitle={subtitle}
      narration={{
        step: index + 1,
        steps: steps.length,
        title: step?.title ?? '',
        text: step?.narrate(facts) ?? '',
        status: { kind: 'idle' },
      }}
      drive={undefined}
    />
  );
}
