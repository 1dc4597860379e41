import Link from 'next/link';
import { OpenPrivateLab } from '@/components/access/open-private-lab';
import { TrainerLock, TrainerUnlock } from '@/components/access/trainer-unlock';
import { AutoRefresh } from '@/components/lab/auto-refresh';
import { LabTitle } from '@/components/lab/lab-title';
import { LeasesTable } from '@/components/lab/leases-table';
import { ProtectedRowsTable } from '@/components/lab/protected-rows-table';
import { ThemeToggle } from '@/components/theme-toggle';
import { LABS, WORKER_LAB_IDS } from '@/lib/model/lab/lab-kinds';
import { isTrainer } from '@/lib/server/access';
import { sharedLabTables } from '@/lib/server/home-tables';
import { privateLabsOf } from '@/lib/server/lab-commands';
import { readCredentials } from '@/lib/server/request-credentials';

export const dynamic = 'force-dynamic';

type Props = { searchParams: Promise<{ unlock?: string }> };

export default async function HomePage({ searchParams }: Props) {
  const credentials = await readCredentials();
  const trainer = isTrainer(credentials);
  const unlockFailed = (await searchParams).unlock === 'failed';
  // Private labs are nobody else's business: their rows and leases stay off this page.
  const data = await Promise.all([sharedLabTables(), privateLabsOf(credentials)]).then(
    ([{ rows, leases }, mine]) => ({ ok: true as const, rows, leases, mine }),
    (error: unknown) => {
      console.error('[page] could not read the database:', error);
      return { ok: false as const };
    },
  );

  return (
    <main className="mx-auto max-w-6xl space-y-8 px-6 py-8">
      <header className="space-y-3">
        <div className="flex items-start justify-between gap-4">
          <h1 className="text-4xl font-bold tracking-tight">Fencing Lab</h1>
          <ThemeToggle />
        </div>
        <p className="max-w-3xl text-xl leading-relaxed text-slate-700 dark:text-slate-300">
          A lease alone is not safe: a holder that freezes past its lease wakes up still believing it owns the resource.
          Fencing gives every lease grant a token from a database sequence, and the storage rejects any write whose
          token is older than the one it holds. Here it happens for real: worker processes, a real freeze, a real
          PostgreSQL.
        </p>
        <p>
          <Link
            href="/labs/fenced/walkthrough"
            className="inline-block rounded-lg bg-sky-700 px-5 py-3 text-lg font-semibold text-white hover:bg-sky-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600"
          >
            Start the walkthrough: The pause
          </Link>
        </p>
      </header>

      <section aria-labelledby="session-heading" className="grid gap-4 lg:grid-cols-2">
        <div className="space-y-2 rounded-lg border border-slate-200 p-4 dark:border-slate-800">
          <h2 id="session-heading" className="text-xl font-semibold">
            Training session
          </h2>
          {trainer ? (
            <>
              <p data-testid="trainer-status">
                You are the trainer: you drive the shared labs, and everyone on them sees what you do.
              </p>
              <TrainerLock />
            </>
          ) : (
            <>
              <p data-testid="trainer-status">
                The shared labs below are driven by the trainer; you watch them live. The trainer key is printed where
                the server was started.
              </p>
              {unlockFailed ? (
                <p role="alert" className="text-rose-800 dark:text-rose-300">
                  That link did not hold the trainer key.
                </p>
              ) : null}
              <TrainerUnlock />
            </>
          )}
          <p>
            <Link className="font-semibold underline" href="/labs/fenced/present">
              Presenter mode
            </Link>{' '}
            for a projector: the walkthrough in large type, and single keys for the trainer.
          </p>
        </div>
        <div className="space-y-2 rounded-lg border border-slate-200 p-4 dark:border-slate-800">
          <h2 className="text-xl font-semibold">Your private labs</h2>
          <p>A lab of your own: its own row, workers and history, which nobody else sees or drives.</p>
          <OpenPrivateLab />
          {data.ok && data.mine.length ? (
            <ul aria-label="Your private labs" className="space-y-1">
              {data.mine.map((lab) => (
                <li key={lab.id}>
                  <Link className="font-semibold underline" href={`/labs/${lab.id}`}>
                    {LABS[lab.kind].title} · {lab.id}
                  </Link>{' '}
                  <span className="text-sm text-slate-600 dark:text-slate-400">
                    {lab.closedAt ? 'closed (replay only)' : 'open'}
                  </span>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </section>

      <section aria-labelledby="labs-heading" className="space-y-3">
        <h2 id="labs-heading" className="text-2xl font-semibold">
          The labs
        </h2>
        <ul className="grid gap-3 md:grid-cols-2 lg:grid-cols-3">
          {WORKER_LAB_IDS.map((lab) => (
            <li key={lab} className="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
              <h3 className="text-lg font-semibold">
                <LabTitle lab={lab} />
              </h3>
              <p className="mt-1 text-slate-700 dark:text-slate-300">{LABS[lab].summary}</p>
              {LABS[lab].failure ? (
                <p className="mt-1 text-rose-800 dark:text-rose-300">Breaks: {LABS[lab].failure}.</p>
              ) : null}
              <p className="mt-2 flex gap-4">
                <Link className="font-semibold underline" href={`/labs/${lab}/walkthrough`}>
                  Walkthrough<span className="sr-only"> of the {LABS[lab].title} lab</span>
                </Link>
                <Link className="font-semibold underline" href={`/labs/${lab}`}>
                  Free play<span className="sr-only"> in the {LABS[lab].title} lab</span>
                </Link>
              </p>
            </li>
          ))}
          <li className="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
            <h3 className="text-lg font-semibold">Failover</h3>
            <p className="mt-1 text-slate-700 dark:text-slate-300">
              The lock service on a primary and a streaming standby of its own; the primary dies and the standby is
              promoted.
            </p>
            <p className="mt-1 text-rose-800 dark:text-rose-300">
              Breaks with asynchronous replication: an acknowledged write lost, a stale write accepted, a token granted
              twice; holds with synchronous replication.
            </p>
            <p className="mt-2 flex gap-4">
              <Link className="font-semibold underline" href="/labs/failover">
                Asynchronous<span className="sr-only"> failover walkthrough</span>
              </Link>
              <Link className="font-semibold underline" href="/labs/failover?mode=sync">
                Synchronous<span className="sr-only"> failover walkthrough</span>
              </Link>
            </p>
          </li>
        </ul>
        <p>
          <Link className="font-semibold underline" href="/replay">
            Replay a saved history
          </Link>{' '}
          (a JSON file exported from a lab) ·{' '}
          <Link className="font-semibold underline" href="/compare?a=fenced&b=no-fencing">
            Compare two runs
          </Link>{' '}
          (two labs or files on one time axis, with the first difference marked)
        </p>
        <p>
          <Link className="font-semibold underline" href="/sweep">
            Sweep the pause
          </Link>{' '}
          (pause lengths × lease TTLs, run for real without fencing and fenced, drawn as a heat map)
        </p>
        <p>
          <Link className="font-semibold underline" href="/wall">
            The class wall
          </Link>{' '}
          (every guard written in a &quot;Your guard&quot; lab, live: the trainer sees the room&apos;s, anyone else
          their own)
        </p>
      </section>

      <section aria-labelledby="db-heading" className="space-y-3">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="db-heading" className="text-2xl font-semibold">
            In the database now
          </h2>
          <AutoRefresh />
        </div>
        {data.ok ? (
          <div className="grid gap-6 lg:grid-cols-2">
            <ProtectedRowsTable rows={data.rows} />
            <LeasesTable leases={data.leases} />
          </div>
        ) : (
          <p
            role="alert"
            className="rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
          >
            The database is not reachable. Start the app with <code className="font-mono">npm start</code>, or check{' '}
            <code className="font-mono">DATABASE_URL</code>.
          </p>
        )}
      </section>
    </main>
  );
}
