import type { Metadata } from 'next';
import { Glyph } from '@/components/glyph';
import { HistoryReplay } from '@/components/lab/replay/history-replay';
import { SiteHeader } from '@/components/site-header';
import { RunWords } from '@/components/wall/client-runs-table';
import { clientRunFileFor } from '@/lib/server/client-runs';
import { exploredFileFor } from '@/lib/server/explore-page';
import { counterexampleFor } from '@/lib/server/guard-counterexamples';
import { readCredentials } from '@/lib/server/request-credentials';

export const metadata: Metadata = { title: 'Replay a saved history · Fencing Lab' };

export const dynamic = 'force-dynamic';

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * A history exported from any lab, replayed entirely in the browser; or, with `?attempt=`, the
 * counterexample of a guard attempt (its trainee's, or the trainer's to show); with `?client=`, the run
 * of a person's own lock client as the class wall lists it (theirs, or the trainer's to show); or, with
 * `?explore=<lab>` and the Explore page's `holders`, `writes`, `renew` and `path`, an explored interleaving.
 */
export default async function ReplayPage({ searchParams }: Props) {
  const query = await searchParams;
  const { attempt, explore, client } = query;
  const credentials = await readCredentials();
  const counterexample = attempt === undefined ? undefined : await counterexampleFor(attempt, credentials);
  const explored = typeof explore === 'string' ? await exploredFileFor(explore, query, credentials) : undefined;
  const clientRun = client === undefined ? undefined : await clientRunFileFor(client, credentials);
  const initial = counterexample
    ? { file: counterexample.file, fileName: counterexample.fileName }
    : explored?.ok
      ? { file: explored.file, fileName: explored.fileName }
      : clientRun
        ? { file: clientRun.file, fileName: clientRun.fileName }
        : undefined;
  return (
    <main className="mx-auto max-w-[110rem] space-y-4 px-4 py-4">
      <SiteHeader subtitle="Replay a saved history" />
      {attempt !== undefined && !counterexample ? (
        <p role="alert" className="font-semibold text-rose-800 dark:text-rose-300">
          <Glyph>✗</Glyph> No counterexample {String(attempt)} that this browser may open.
        </p>
      ) : null}
      {explore !== undefined && !explored?.ok ? (
        <p role="alert" className="font-semibold text-rose-800 dark:text-rose-300">
          <Glyph>✗</Glyph> No explored interleaving to open:{' '}
          {explored && !explored.ok ? explored.message : 'name one lab'}.
        </p>
      ) : null}
      {client !== undefined && !clientRun ? (
        <p role="alert" className="font-semibold text-rose-800 dark:text-rose-300">
          <Glyph>✗</Glyph> No client run {String(client)} that this browser may open (a run is kept once it has ended).
        </p>
      ) : null}
      {clientRun ? (
        <section
          aria-label="The client that ran"
          className="space-y-1 rounded-lg border border-slate-300 p-3 dark:border-slate-700"
        >
          <p className="text-sm font-semibold">
            Lane {clientRun.run.actor} ran <code className="font-mono">{clientRun.run.program}</code> (
            {clientRun.run.language}) in {clientRun.run.labTitle}:
          </p>
          <p data-testid="client-run-words" className="text-sm">
            <RunWords run={clientRun.run} />
          </p>
        </section>
      ) : null}
      {counterexample ? (
        <section
          aria-label="The guard that ran"
          className="space-y-1 rounded-lg border border-slate-300 p-3 dark:border-slate-700"
        >
          <p className="text-sm font-semibold">The statement that ran ({counterexample.fileName}):</p>
          <pre data-testid="counterexample-statement" className="whitespace-pre-wrap break-words font-mono text-sm">
            {counterexample.statement}
          </pre>
          <p className="text-sm text-rose-800 dark:text-rose-300">
            <Glyph>✗</Glyph> {counterexample.verdict}
          </p>
        </section>
      ) : null}
      <HistoryReplay initial={initial} />
    </main>
  );
}
