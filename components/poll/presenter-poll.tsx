'use client';

import { useState } from 'react';
import { askRoomAction, revealAnswersAction } from '@/app/actions';
import { useLabStore, useLabStoreApi } from '@/components/lab/lab-store-provider';
import { answeredWords } from '@/lib/model/poll/poll';
import { suggestedPoll } from '@/lib/model/poll/poll-suggestions';
import type { Facts, Step } from '@/lib/model/walkthrough/walkthrough';
import { useCurrentPoll } from './use-current-poll';

type Asked = {
  steps: readonly Pick<Step, 'id' | 'title'>[];
  /** The step shown (from 0): a question is about the next one. */
  shown: number;
  facts: Facts;
  /** The shown step is the lab's, in this run: a question asked now belongs to it. */
  ready: boolean;
};

/**
 * The trainer's question from the projector (the Q key): with no question open, asks the room the
 * one the story suggests about the next step; with one open, reveals its answers. Running the step
 * asked about reveals them too (the server does). Errors and refusals go to the page's notices.
 */
export function usePresenterPoll({ steps, shown, facts, ready }: Asked) {
  const store = useLabStoreApi();
  const lab = useLabStore((s) => s.lab);
  const shared = useLabStore((s) => s.visibility === 'shared');
  const poll = useCurrentPoll();
  const [busy, setBusy] = useState(false);
  // A question just asked, until the feed's next snapshot (once a second) carries it: a Q meanwhile reveals it.
  const [asked, setAsked] = useState<number | undefined>(undefined);
  const next = steps[shown + 1];
  const suggestion = ready && next ? suggestedPoll(next, facts) : undefined;
  const pending = asked !== undefined && (poll === undefined || poll.id < asked);
  const open = poll?.state === 'open' ? poll.id : pending ? asked : undefined;
  const revealedForNext = poll?.state === 'revealed' && poll.step === shown + 1;

  const askOrReveal = async () => {
    const { notify } = store.getState();
    if (!shared) return notify('error', 'Questions are for the room: this lab is private');
    if (busy) return;
    if (open === undefined && revealedForNext)
      return notify('error', 'The room’s answers are already revealed: → runs the step');
    if (open === undefined && !ready)
      return notify('error', 'Wait for the step to finish, then ask about the next one');
    if (open === undefined && !suggestion)
      return notify('error', 'No question for the next step: ask your own on the walkthrough page');
    setBusy(true);
    try {
      if (open !== undefined) {
        const result = await revealAnswersAction({ lab, poll: open });
        if (!result.ok) notify('error', `Not revealed: ${result.error.message}`);
        else setAsked(undefined);
      } else if (suggestion) {
        const result = await askRoomAction({
          lab,
          step: shown + 1,
          question: suggestion.question,
          choices: suggestion.choices,
        });
        if (!result.ok) notify('error', `Not asked: ${result.error.message}`);
        else setAsked(result.data.poll);
      }
    } catch {
      // The action threw only if the server could not be reached: its refusals come back as results.
      notify('error', 'The server could not be reached');
    } finally {
      setBusy(false);
    }
  };
  return { askOrReveal };
}

/**
 * The room's question on the projector, small under the narration, once asked: the question and how
 * many have answered, the tallies once revealed. Nothing while no question is out: the narration keeps
 * the room (the keys' line says what Q does). An open question shows at every step (gone Back two steps,
 * it names its step); a revealed one only beside its step.
 */
export function PresenterPoll() {
  const shared = useLabStore((s) => s.visibility === 'shared');
  // The step shown (from 0), when the page tells a walkthrough: a question belongs to it (asked before it
  // ran) or to the next (asked now); one about another step is not this step's, as no other panel is.
  const shown = useLabStore((s) => (s.stepMoment ? s.stepMoment.step - 1 : undefined));
  const poll = useCurrentPoll();
  if (!shared || !poll || poll.state === 'closed') return null;
  const ofThisStep = shown === undefined || poll.step === shown || poll.step === shown + 1;
  // An open question is the room's now, whichever step is shown (the room is answering it, and Q
  // reveals it): said with its step when it is another's. A revealed one belongs to its step.
  if (!ofThisStep && poll.state !== 'open') return null;
  return (
    <section
      aria-label="The room's question"
      className="rounded-lg border-2 border-amber-300 bg-amber-50 px-3 py-1.5 text-base dark:border-amber-800 dark:bg-amber-950"
      data-testid="presenter-poll"
    >
      <p className="font-semibold">
        The room{ofThisStep ? '' : `, about step ${poll.step + 1}`}: {poll.question}
      </p>
      <p aria-live="polite">
        {poll.tallies
          ? poll.choices.map((choice, i) => `${choice}: ${poll.tallies?.[i] ?? 0}`).join(' · ')
          : `So far: ${answeredWords(poll.answered)}`}
        {poll.state === 'open' ? ' · Q reveals' : ''}
      </p>
    </section>
  );
}
