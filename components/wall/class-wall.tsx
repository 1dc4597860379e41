'use client';

import Link from 'next/link';
import { useEffect, useMemo, useState } from 'react';
import { type WallAttempt, wallRows, wallWords } from '@/lib/model/class-wall';

/** The wall's rows, fed by /api/guard-attempts: the attempts so far, then each new one as it commits. */
export function ClassWall() {
  const [attempts, setAttempts] = useState<WallAttempt[]>([]);
  const [live, setLive] = useState(false);
  useEffect(() => {
    const source = new EventSource('/api/guard-attempts');
    source.addEventListener('attempts', (event) => {
      setAttempts(JSON.parse((event as MessageEvent<string>).data) as WallAttempt[]);
      setLive(true);
    });
    source.addEventListener('attempt', (event) => {
      const attempt = JSON.parse((event as MessageEvent<string>).data) as WallAttempt;
      setAttempts((previous) => [...previous, attempt]);
    });
    source.onerror = () => setLive(false);
    return () => source.close();
  }, []);
  const rows = useMemo(() => wallRows(attempts), [attempts]);
  return (
    <section aria-labelledby="wall-heading" className="space-y-2">
      <h2 id="wall-heading" className="text-lg font-semibold">
        Guard attempts
      </h2>
      <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
        {live
          ? `${rows.length} ${rows.length === 1 ? 'trainee' : 'trainees'}, ${attempts.length} ${attempts.length === 1 ? 'attempt' : 'attempts'}; live`
          : 'Connecting…'}
      </p>
      <table className="w-full border-collapse text-left text-base">
        <caption className="sr-only">Each trainee's latest guard and its verdict</caption>
        <thead>
          <tr className="border-b border-slate-300 dark:border-slate-700">
            <th scope="col" className="py-1 pr-3">
              Name
            </th>
            <th scope="col" className="py-1 pr-3">
              Verdict
            </th>
            <th scope="col" className="py-1 pr-3">
              Attempts
            </th>
            <th scope="col" className="py-1">
              Counterexample
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.trainee} data-testid="wall-row" className="border-b border-slate-200 dark:border-slate-800">
              <th scope="row" className="py-1 pr-3 font-semibold">
                {row.name}
              </th>
              <td
                className={`py-1 pr-3 ${row.passed ? 'text-emerald-800 dark:text-emerald-300' : 'text-rose-800 dark:text-rose-300'}`}
              >
                {row.passed ? '✓ ' : '✗ '}
                {wallWords(row)}
              </td>
              <td className="py-1 pr-3">{row.attempts}</td>
              <td className="py-1">
                {row.counterexample ? (
                  <Link className="font-semibold underline" href={`/replay?attempt=${row.counterexample.id}`}>
                    Open attempt {row.counterexample.id}
                    <span className="sr-only"> ({row.name})</span>
                  </Link>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
