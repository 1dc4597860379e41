import Link from 'next/link';
import { Glyph } from '@/components/glyph';
import { clock } from '@/components/lab/format';
import { traineeLabel, type WallAttempt, wallVerdict } from '@/lib/model/guard/class-wall';

/*
 * The wall's two tables: every attacked attempt, one row each (its time, who, the statement that ran,
 * its verdict and its own counterexample), and apart from them the statements refused before they ran.
 */

const head = 'py-1 pr-3';
/** The database's time of the attempt, written as the app writes every time (24-hour database time, 10:06:14.512). */
const timeOf = (at: number) => clock(at);

function Statement({ text }: { text: string }) {
  return <code className="block max-w-xl whitespace-pre-wrap break-words font-mono text-sm">{text}</code>;
}

function toneOf(attempt: WallAttempt): string {
  if (attempt.outcome === 'queued') return 'text-slate-700 dark:text-slate-300';
  return attempt.outcome === 'passed' ? 'text-emerald-800 dark:text-emerald-300' : 'text-rose-800 dark:text-rose-300';
}

/** The verdict's mark for the eye only (a screen reader would read "hourglass not done"), then its words. */
function VerdictWords({ attempt }: { attempt: WallAttempt }) {
  const { mark, words } = wallVerdict(attempt);
  return (
    <>
      <Glyph>{mark}</Glyph> {words}
    </>
  );
}

export function AttemptsTable({ attempts }: { attempts: readonly WallAttempt[] }) {
  return (
    <table className="w-full border-collapse text-left text-base">
      <caption className="sr-only">Every guard attempt, newest first</caption>
      <thead>
        <tr className="border-b border-slate-300 dark:border-slate-700">
          {['Time', 'Trainee', 'Statement', 'Verdict', 'Counterexample'].map((title) => (
            <th key={title} scope="col" className={head}>
              {title}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {attempts.map((attempt) => (
          <tr
            key={attempt.id}
            data-testid="wall-row"
            className="border-b border-slate-200 align-top dark:border-slate-800"
          >
            <td className="py-1 pr-3 tabular-nums">{timeOf(attempt.at)}</td>
            <th scope="row" className="py-1 pr-3 font-semibold">
              {traineeLabel(attempt)}
            </th>
            <td className="py-1 pr-3">
              <Statement text={attempt.statement} />
            </td>
            <td className={`py-1 pr-3 ${toneOf(attempt)}`}>
              <VerdictWords attempt={attempt} />
            </td>
            <td className="py-1">
              {attempt.hasCounterexample ? (
                <Link className="font-semibold underline" href={`/replay?attempt=${attempt.id}`}>
                  Open attempt {attempt.id}
                  <span className="sr-only"> ({traineeLabel(attempt)})</span>
                </Link>
              ) : (
                '—'
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RefusalsTable({ attempts }: { attempts: readonly WallAttempt[] }) {
  return (
    <section aria-labelledby="refusals-heading" className="space-y-1 pt-2">
      <h3 id="refusals-heading" className="text-base font-semibold">
        Refused before they ran (not attacked, not counted as attempts)
      </h3>
      <table className="w-full border-collapse text-left text-sm">
        <caption className="sr-only">Statements refused before they ran, newest first</caption>
        <thead>
          <tr className="border-b border-slate-300 dark:border-slate-700">
            {['Time', 'Trainee', 'Statement', 'Why'].map((title) => (
              <th key={title} scope="col" className={head}>
                {title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {attempts.map((attempt) => (
            <tr
              key={attempt.id}
              data-testid="wall-refusal"
              className="border-b border-slate-200 align-top dark:border-slate-800"
            >
              <td className="py-1 pr-3 tabular-nums">{timeOf(attempt.at)}</td>
              <th scope="row" className="py-1 pr-3 font-semibold">
                {traineeLabel(attempt)}
              </th>
              <td className="py-1 pr-3">
                <Statement text={attempt.statement} />
              </td>
              <td className="py-1">{attempt.verdict}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
