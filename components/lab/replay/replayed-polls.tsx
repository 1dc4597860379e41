import type { HistoryPoll } from '@/lib/model/history/history-file';
import { PollResults } from '../../poll/poll-results';

/**
 * The questions the trainer asked the room during the exported run, as the file keeps them: each
 * with the step it was asked before, and its tallies if they were revealed (else only how many answered).
 */
export function ReplayedPolls({ polls }: { polls: readonly HistoryPoll[] | undefined }) {
  if (!polls || polls.length === 0) return null;
  return (
    <section
      aria-labelledby="replayed-polls-heading"
      className="space-y-2 rounded-lg border border-amber-300 p-3 dark:border-amber-800"
    >
      <h2 id="replayed-polls-heading" className="text-lg font-semibold">
        The room’s questions
      </h2>
      <ol className="space-y-3">
        {polls.map((poll) => (
          <li key={poll.id}>
            <p className="text-sm">
              About step {poll.step}
              {poll.tallies ? '' : ': its answers were not revealed'}
            </p>
            <PollResults poll={poll} />
          </li>
        ))}
      </ol>
    </section>
  );
}
