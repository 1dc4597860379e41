'use client';

import { useState } from 'react';
import { askRoomAction, revealAnswersAction } from '@/app/actions';
import { controlButton } from '@/components/lab/controls/styles';
import { useLabStore } from '@/components/lab/lab-store-provider';
import type { ActionResult } from '@/lib/model/core/action-result';
import { suggestedPoll } from '@/lib/model/poll/poll-suggestions';
import type { Facts, Step } from '@/lib/model/walkthrough/walkthrough';
import { OwnQuestionForm } from './own-question-form';
import { PollResults } from './poll-results';
import { useCurrentPoll } from './use-current-poll';

/**
 * The trainer's "Ask the room", beside the narration: before the next step runs, the question the
 * story suggests or one of their own; then how many answered, as they answer, and Reveal. Running the
 * step asked about reveals the answers too (the server does, when the step is shown).
 */
export function PollAsker({
  steps,
  shown,
  facts,
  ready,
}: {
  steps: readonly Pick<Step, 'id' | 'title'>[];
  /** The step shown (from 0): the question is about the next one. */
  shown: number;
  facts: Facts;
  /** The shown step is the lab's, in this run: a question asked now belongs to it. */
  ready: boolean;
}) {
  const lab = useLabStore((s) => s.lab);
  const shared = useLabStore((s) => s.visibility === 'shared');
  const poll = useCurrentPoll();
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  if (!shared) return null;

  const nextIndex = shown + 1;
  const next = steps[nextIndex];
  const suggestion = next && suggestedPoll(next, facts);
  const current = poll && poll.state !== 'closed' ? poll : undefined;

  const send = async (call: () => Promise<ActionResult<unknown>>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      const result = await call();
      if (!result.ok) setError(result.error.message);
      return result.ok;
    } catch {
      // The action threw only if the server could not be reached: its refusals come back as results.
      setError('the server could not be reached');
      return false;
    } finally {
      setBusy(false);
    }
  };
  const ask = (question: string, choices: string[]) =>
    send(() => askRoomAction({ lab, step: nextIndex, question, choices }));

  return (
    <section
      aria-labelledby="poll-asker-heading"
      className="space-y-2 rounded-md border border-sky-300 bg-white p-2 dark:border-sky-800 dark:bg-slate-900"
    >
      <h3 id="poll-asker-heading" className="text-base font-bold">
        Ask the room
      </h3>
      {current ? (
        <div className="space-y-2">
          <p className="text-sm">
            About step {current.step + 1}, “{steps[current.step]?.title}”
            {current.state === 'open' ? ': running it reveals the answers.' : ':'}
          </p>
          <PollResults poll={current} />
          {current.state === 'open' ? (
            <button
              type="button"
              className={controlButton}
              disabled={busy}
              onClick={() => void send(() => revealAnswersAction({ lab, poll: current.id }))}
            >
              Reveal the answers
            </button>
          ) : null}
        </div>
      ) : null}
      {ready && next ? (
        <div className="space-y-2">
          <p className="text-sm">
            Before step {nextIndex + 1}, “{next.title}”
            {current?.state === 'open' ? ' (replaces the open question)' : ''}:
          </p>
          {suggestion ? (
            <button
              type="button"
              className={controlButton}
              disabled={busy}
              onClick={() => void ask(suggestion.question, suggestion.choices)}
            >
              Ask: {suggestion.question} ({suggestion.choices.join(' / ')})
            </button>
          ) : null}
          <OwnQuestionForm busy={busy} onAsk={ask} />
        </div>
      ) : null}
      {error ? (
        <p role="alert" className="text-base font-semibold text-rose-800 dark:text-rose-300">
          Not asked: {error}.
        </p>
      ) : null}
    </section>
  );
}
