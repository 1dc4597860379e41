import Link from 'next/link';
import { Fragment } from 'react';
import { Glyph } from '@/components/glyph';
import { clock } from '@/components/lab/format';
import { runnerLabel, runParts, type WallClientRun } from '@/lib/model/checker/client-runs';

/*
 * The wall's clients (issue 36, item 6): one row per run of a person's own program as a lane, newest
 * first: when it started, who ran it, in which lab and lane, its program and language, how it ended
 * and what it did wrong, and its run on /replay once it ended.
 */

const head = 'py-1 pr-3';

function toneOf(run: WallClientRun): string {
  if (run.state !== 'ended' || run.ended?.how === 'replaced') return 'text-slate-700 dark:text-slate-300';
  if (!run.faults) return 'text-slate-700 dark:text-slate-300';
  return run.faults.length ? 'text-rose-800 dark:text-rose-300' : 'text-emerald-800 dark:text-emerald-300';
}

/** How a run went (runParts): its marks for the eye only, its words for everyone; the /replay page's too. */
export function RunWords({ run }: { run: Pick<WallClientRun, 'state' | 'ended' | 'faults' | 'cleared'> }) {
  return runParts(run).map(({ mark, words }, index) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: at most two parts, always in the same order; their words are free text.
    <Fragment key={index}>
      {index > 0 ? ' · ' : null}
      {mark ? (
        <>
          <Glyph>{mark}</Glyph>{' '}
        </>
      ) : null}
      {words}
    </Fragment>
  ));
}

export function ClientRunsTable({ runs }: { runs: readonly WallClientRun[] }) {
  if (!runs.length) {
    return (
      <p data-testid="wall-clients-empty" className="text-sm text-slate-600 dark:text-slate-400">
        No client yet. A lab page's “Run a worker from your own machine” gives the command that runs a program of your
        own as a lane (<code className="font-mono">--exec</code>).
      </p>
    );
  }
  return (
    <div className="overflow-x-auto">
      <table className="w-full border-collapse text-left text-base">
        <caption className="sr-only">Every client run as a lane, newest first</caption>
        <thead>
          <tr className="border-b border-slate-300 dark:border-slate-700">
            {['Started', 'Who', 'Lab and lane', 'Program', 'Language', 'How it went', 'Run'].map((title) => (
              <th key={title} scope="col" className={head}>
                {title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr
              key={run.id}
              data-testid="wall-client"
              className="border-b border-slate-200 align-top dark:border-slate-800"
            >
              <td className="py-1 pr-3 tabular-nums">{clock(run.at)}</td>
              <th scope="row" className="py-1 pr-3 font-semibold">
                {runnerLabel(run)}
              </th>
              <td className="py-1 pr-3">
                {run.labTitle}, lane {run.actor}
              </td>
              <td className="py-1 pr-3">
                <code className="block max-w-xs break-words font-mono text-sm">{run.program}</code>
              </td>
              <td className="py-1 pr-3">{run.language}</td>
              <td className={`max-w-md break-words py-1 pr-3 ${toneOf(run)}`}>
                <RunWords run={run} />
              </td>
              <td className="py-1">
                {run.hasHistory ? (
                  <Link className="font-semibold underline" href={`/replay?client=${run.id}`}>
                    Open run {run.id}
                    <span className="sr-only">
                      {' '}
                      ({runnerLabel(run)}, {run.program})
                    </span>
                  </Link>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
