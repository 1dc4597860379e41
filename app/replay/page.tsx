import type { Metadata } from 'next';
import { HistoryReplay } from '@/components/lab/replay/history-replay';
import { SiteHeader } from '@/components/site-header';
import { exploredFileFor } from '@/lib/server/explore-page';
import { counterexampleFor } from '@/lib/server/guard-counterexamples';
import { readCredentials } from '@/lib/server/request-credentials';

export const metadata: Metadata = { title: 'Replay a saved history · Fencing Lab' };

export const dynamic = 'force-dynamic';

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * A history exported from any lab, replayed entirely in the browser; or, with `?attempt=`, the
 * counterexample of a guard attempt (its trainee's, or the trainer's to show); or, with `?explore=<lab>`
 * and the Explore page's `holders`, `writes` and `path`, an explored interleaving.
 */
export default async function ReplayPage({ searchParams }: Props) {
  const query = await searchParams;
  const { attempt, explore } = query;
  const credentials = await readCredentials();
  const counterexample = attempt === undefined ? undefined : await counterexampleFor(attempt, credentials);
  const explored = typeof explore === 'string' ? await exploredFileFor(explore, query, credentials) : undefined;
  const initial = counterexample
    ? { file: counterexample.file, fileName: counterexample.fileName }
    : explored?.ok
      ? { file: explored.file, fileName: explored.fileName }
      : undefined;
  return (
    <main className="mx-auto max-w-[110rem] space-y-4 px-4 py-4">
      <SiteHeader subtitle="Replay a saved history" />
      {attempt !== undefined && !counterexample ? (
        <p role="alert" className="font-semibold text-rose-800 dark:text-rose-300">
          ✗ No counterexample {String(attempt)} that this browser may open.
        </p>
      ) : null}
      {explore !== undefined && !explored?.ok ? (
        <p role="alert" className="font-semibold text-rose-800 dark:text-rose-300">
          ✗ No explored interleaving to open: {explored && !explored.ok ? explored.message : 'name one lab'}.
        </p>
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
          <p className="text-sm text-rose-800 dark:text-rose-300">✗ {counterexample.verdict}</p>
        </section>
      ) : null}
      <HistoryReplay initial={initial} />
    </main>
  );
}
