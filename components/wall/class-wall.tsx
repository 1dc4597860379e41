'use client';

import { useEffect, useMemo, useState } from 'react';
import { type WallClientRun, withClientRun } from '@/lib/model/checker/client-runs';
import { queueLine, type WallAttempt, wallOf, withAttempt } from '@/lib/model/guard/class-wall';
import { ClientRunsTable } from './client-runs-table';
import { AttemptsTable, RefusalsTable } from './wall-tables';

/**
 * The wall's rows, fed by /api/guard-attempts: the attempts so far, then each one again as it joins
 * the line, is claimed and gets its verdict; and the client runs so far, then each again as it starts
 * and ends. The trainer's wall (the whole room's rows) also counts
 * the guards in line and being attacked; a trainee's holds only their own, so it does not.
 */
export function ClassWall({ trainer = false }: { trainer?: boolean }) {
  const [attempts, setAttempts] = useState<WallAttempt[]>([]);
  const [clients, setClients] = useState<WallClientRun[]>([]);
  const [live, setLive] = useState(false);
  useEffect(() => {
    const source = new EventSource('/api/guard-attempts');
    source.addEventListener('attempts', (event) => {
      setAttempts(JSON.parse((event as MessageEvent<string>).data) as WallAttempt[]);
      setLive(true);
    });
    source.addEventListener('attempt', (event) => {
      const attempt = JSON.parse((event as MessageEvent<string>).data) as WallAttempt;
      setAttempts((previous) => withAttempt(previous, attempt));
    });
    source.addEventListener('clients', (event) => {
      setClients(JSON.parse((event as MessageEvent<string>).data) as WallClientRun[]);
    });
    source.addEventListener('client', (event) => {
      const run = JSON.parse((event as MessageEvent<string>).data) as WallClientRun;
      setClients((previous) => withClientRun(previous, run));
    });
    source.onerror = () => setLive(false);
    return () => source.close();
  }, []);
  const wall = useMemo(() => wallOf(attempts), [attempts]);
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return (
    <div className="space-y-6">
      <section aria-labelledby="wall-heading" className="space-y-2">
        <h2 id="wall-heading" className="text-lg font-semibold">
          Guard attempts
        </h2>
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          {live
            ? `${count(wall.trainees, 'trainee', 'trainees')}, ${count(wall.attacks.length, 'attempt', 'attempts')} (and ${count(wall.refusals.length, 'statement', 'statements')} refused before they ran); live`
            : 'Connecting…'}
        </p>
        {trainer && live ? (
          <p data-testid="wall-queue" className="text-base font-semibold">
            {queueLine(wall.waiting)}
          </p>
        ) : null}
        <AttemptsTable attempts={wall.attacks} />
        {wall.refusals.length ? <RefusalsTable attempts={wall.refusals} /> : null}
      </section>
      <section aria-labelledby="wall-clients-heading" className="space-y-2">
        <h2 id="wall-clients-heading" className="text-lg font-semibold">
          Clients
        </h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {trainer
            ? 'Every lock client the room ran as a lane (npm run worker -- --exec), newest first: who, in which language, how it ended and what it did wrong, with its run to replay.'
            : 'Your own lock clients run as a lane (the trainer sees the whole room’s).'}
        </p>
        {live ? <ClientRunsTable runs={clients} /> : null}
      </section>
    </div>
  );
}
