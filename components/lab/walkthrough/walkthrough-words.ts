import type { RowNow } from '@/lib/model/walkthrough/narration';
import type { Step } from '@/lib/model/walkthrough/walkthrough';
import type { WalkthroughPosition } from '@/lib/model/walkthrough/walkthrough-progress';
import type { useWalkthrough } from './use-walkthrough';

type Walk = Pick<
  ReturnType<typeof useWalkthrough>,
  'steps' | 'shown' | 'reached' | 'position' | 'pending' | 'deepLink' | 'facts'
>;

const READY_TEXT =
  'Ready when you are: press → to begin. This step resets the lab (its workers stop, its history is cleared); until then it runs on as it is.';

/**
 * The shown step's narration: what happened (with the row as the database has it now), or, before
 * the lab got there, what the step will do.
 */
export function narrationOf(walk: Walk, row: RowNow | undefined): string {
  const step = walk.steps[walk.shown];
  if (!step || walk.position === undefined) return '';
  if (walk.pending.length === 0) return step.narrate(walk.facts, row);
  if (walk.position.kind === 'off-script' && walk.shown === 0) return READY_TEXT;
  return `Not run yet. ${step.preview}`;
}

/**
 * Where the lab is, when the page shows another step (a deep link) or does not know yet; and the
 * label of the button that runs the steps up to the shown one, when some are needed.
 */
export function offerOf(walk: Walk): { note: string | undefined; run: string | undefined } {
  const { position, pending, reached = -1, shown, deepLink } = walk;
  if (position === undefined) return { note: 'Finding out where the lab is…', run: undefined };
  const first = pending[0];
  const lastPending = pending.at(-1);
  if (first === undefined || lastPending === undefined) {
    if (!deepLink) return { note: undefined, run: undefined };
    return {
      note:
        shown === reached
          ? 'The lab is at this step already.'
          : `The lab is past this step already: it is at step ${reached + 1}.`,
      run: undefined,
    };
  }
  const where =
    position.kind === 'off-script'
      ? `This lab is not following the walkthrough now (${position.why}).`
      : `The lab is at step ${reached + 1}.`;
  if (lastPending === 0) return { note: where, run: 'Run step 1: reset the lab' };
  const which = first === lastPending ? `Run step ${first + 1}` : `Run steps ${first + 1} to ${lastPending + 1}`;
  return { note: where, run: first === 0 ? `${which} (step 1 resets the lab)` : which };
}

/** What a watcher's page shows: the step the trainer shows, as the lab records it. */
export type WatchedView = {
  /** From 1; undefined while no step is shown (the trainer has not begun, or the lab is off script). */
  step: number | undefined;
  steps: number;
  title: string;
  text: string;
};

/**
 * A watcher's narration: exactly the step the lab records as the trainer's (`recorded`, from 0), in
 * the words of what happened once every step up to it is done in the events this page holds; until
 * then (the feed may bring the record before the events it rests on), its title and what it waits for.
 */
export function watchedViewOf(
  steps: readonly Step[],
  position: WalkthroughPosition | undefined,
  recorded: number | undefined,
  row?: RowNow,
): WatchedView {
  const none = (text: string): WatchedView => ({ step: undefined, steps: steps.length, title: WAITING_TITLE, text });
  if (position === undefined) return none('Finding out where the lab is…');
  if (position.kind === 'off-script')
    return none(
      `The lab is not following the walkthrough now (${position.why}): the narration starts when the trainer begins it.`,
    );
  const step = recorded === undefined ? undefined : steps[recorded];
  if (recorded === undefined || !step) return none(NOT_BEGUN_TEXT);
  const shown = { step: recorded + 1, steps: steps.length, title: step.title };
  if (position.step >= recorded) return { ...shown, text: step.narrate(position.facts, row) };
  const next = steps[position.step + 1];
  return { ...shown, text: `Waiting for ${next?.waitingFor ?? step.waitingFor}…` };
}

const WAITING_TITLE = 'Waiting for the trainer';
const NOT_BEGUN_TEXT =
  'The trainer has not shown a step of the walkthrough since the lab was last reset: each step appears here as the trainer shows it.';
