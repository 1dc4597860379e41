'use client';

import { useId, useState } from 'react';
import { controlButton } from '@/components/lab/controls/styles';
import { POLL_CHOICE_MAX_CHARS, POLL_CHOICES, POLL_QUESTION_MAX_CHARS } from '@/lib/model/poll/poll';

const field =
  'w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-base dark:border-slate-700 dark:bg-slate-950';

/** The trainer's own question, with 2 to 4 choices; the server checks it and says what is wrong. */
export function OwnQuestionForm({
  busy,
  onAsk,
}: {
  busy: boolean;
  onAsk: (question: string, choices: string[]) => Promise<boolean>;
}) {
  const id = useId();
  const [question, setQuestion] = useState('');
  const [choices, setChoices] = useState<string[]>(['', '']);
  return (
    <details>
      <summary className="cursor-pointer text-sm font-semibold">Ask your own question</summary>
      <form
        className="mt-2 space-y-2"
        onSubmit={(event) => {
          event.preventDefault();
          void onAsk(question, choices).then((asked) => {
            if (!asked) return;
            setQuestion('');
            setChoices(['', '']);
          });
        }}
      >
        <label htmlFor={`${id}-q`} className="block text-sm font-medium">
          Question
        </label>
        <input
          id={`${id}-q`}
          className={field}
          value={question}
          maxLength={POLL_QUESTION_MAX_CHARS + 20}
          onChange={(e) => setQuestion(e.target.value)}
        />
        {choices.map((choice, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a choice is its position in the list.
          <div key={i}>
            <label htmlFor={`${id}-c${i}`} className="block text-sm font-medium">
              Choice {i + 1}
            </label>
            <input
              id={`${id}-c${i}`}
              className={field}
              value={choice}
              maxLength={POLL_CHOICE_MAX_CHARS + 20}
              onChange={(e) => setChoices(choices.map((c, j) => (j === i ? e.target.value : c)))}
            />
          </div>
        ))}
        <div className="flex flex-wrap gap-2">
          <button
            type="button"
            className={controlButton}
            disabled={choices.length >= POLL_CHOICES.max}
            onClick={() => setChoices([...choices, ''])}
          >
            Add a choice
          </button>
          <button
            type="button"
            className={controlButton}
            disabled={choices.length <= POLL_CHOICES.min}
            onClick={() => setChoices(choices.slice(0, -1))}
          >
            Remove the last choice
          </button>
          <button type="submit" className={controlButton} disabled={busy}>
            Ask the room
          </button>
        </div>
      </form>
    </details>
  );
}
