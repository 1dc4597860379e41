import { answeredWords, type PollView } from '@/lib/model/poll/poll';

/**
 * A question's choices: with their tallies once revealed (a bar and a count each, the count in
 * words so that nothing rests on the bar's length), else only how many answered.
 */
export function PollResults({ poll, own }: { poll: PollView; own?: number | undefined }) {
  const { tallies } = poll;
  return (
    <div className="space-y-1">
      <p className="text-lg font-semibold" data-testid="poll-question">
        {poll.question}
      </p>
      <ul className="space-y-1" aria-label={tallies ? 'The room’s answers' : 'The choices'}>
        {poll.choices.map((choice, i) => {
          const count = tallies?.[i];
          const share = count !== undefined && poll.answered > 0 ? Math.round((100 * count) / poll.answered) : 0;
          return (
            <li key={choice} className="text-base">
              <span className="font-medium">{choice}</span>
              {count === undefined ? null : (
                <>
                  {`: ${count} (${share} %)`}
                  <span className="block h-2 rounded bg-slate-200 dark:bg-slate-700" aria-hidden="true">
                    <span className="block h-2 rounded bg-sky-600" style={{ width: `${share}%` }} />
                  </span>
                </>
              )}
              {own === i ? <span className="ml-2 text-sm">(your answer)</span> : null}
            </li>
          );
        })}
      </ul>
      <p className="text-base" data-testid="poll-count" aria-live="polite">
        {tallies ? `Revealed: ${answeredWords(poll.answered)}.` : `So far: ${answeredWords(poll.answered)}.`}
      </p>
    </div>
  );
}
