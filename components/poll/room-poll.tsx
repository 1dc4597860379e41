'use client';

import { useEffect, useState } from 'react';
import { answerQuestionAction, ownAnswersAction } from '@/app/actions';
import { controlButton } from '@/components/lab/controls/styles';
import { useLabStore } from '@/components/lab/lab-store-provider';
import { PollResults } from './poll-results';
import { useCurrentPoll } from './use-current-poll';

/**
 * A trainee's side of the trainer's question: the choices to pick from (one answer, changeable until
 * the reveal), then the room's answers once the trainer reveals them, never before. This browser's
 * own answer is read from the server (who answered is the browser's owner cookie, not a name).
 */
export function RoomPoll() {
  const lab = useLabStore((s) => s.lab);
  const shared = useLabStore((s) => s.visibility === 'shared');
  const poll = useCurrentPoll();
  const pollId = poll?.id;
  const [own, setOwn] = useState<{ poll: number; choice: number } | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (pollId === undefined) return;
    let current = true;
    ownAnswersAction({ lab })
      .then((result) => {
        if (!current || !result.ok) return;
        const mine = result.data.find((a) => a.poll === pollId);
        setOwn(mine);
      })
      // Our earlier answer could not be read: the poll shows none, and answering still works.
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [lab, pollId]);

  if (!shared || !poll || poll.state === 'closed') return null;
  const ownChoice = own?.poll === poll.id ? own.choice : undefined;

  const answer = async (choice: number) => {
    setBusy(true);
    setError(undefined);
    try {
      const result = await answerQuestionAction({ lab, poll: poll.id, choice });
      if (result.ok) setOwn(result.data);
      else setError(result.error.message);
    } catch {
      // The action threw only if the server could not be reached: its refusals come back as results.
      setError('the server could not be reached');
    } finally {
      setBusy(false);
    }
  };

  return (
    <section
      aria-labelledby="room-poll-heading"
      className="space-y-2 rounded-lg border border-amber-300 bg-amber-50 p-3 dark:border-amber-800 dark:bg-amber-950"
    >
      <h2 id="room-poll-heading" className="text-xl font-bold">
        {poll.state === 'open' ? 'Predict, then watch' : 'What the room predicted'}
      </h2>
      {poll.state === 'open' ? (
        <>
          <p className="text-lg font-semibold" data-testid="poll-question">
            {poll.question}
          </p>
          <div className="flex flex-wrap gap-2">
            {poll.choices.map((choice, i) => (
              <button
                key={choice}
                type="button"
                className={controlButton}
                aria-pressed={ownChoice === i}
                disabled={busy}
                onClick={() => void answer(i)}
              >
                {choice}
              </button>
            ))}
          </div>
          <p className="text-base" role="status">
            {ownChoice === undefined
              ? `Pick one. The room's answers are shown when step ${poll.step + 1} runs.`
              : `Your answer: ${poll.choices[ownChoice]}. You can change it until the trainer reveals the answers.`}
          </p>
        </>
      ) : (
        <PollResults poll={poll} own={ownChoice} />
      )}
      {error ? (
        <p role="alert" className="text-base font-semibold text-rose-800 dark:text-rose-300">
          Not answered: {error}.
        </p>
      ) : null}
    </section>
  );
}
