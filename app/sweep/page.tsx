import type { Metadata } from 'next';
import Link from 'next/link';
import { SiteHeader } from '@/components/site-header';
import { SweepPanel } from '@/components/sweep/sweep-panel';
import { readCredentials } from '@/lib/server/request-credentials';
import { sweepPageData } from '@/lib/server/sweep-commands';

export const metadata: Metadata = { title: 'Sweep the pause · Fencing Lab' };
export const dynamic = 'force-dynamic';

/** The pause story over a grid of pause lengths × lease TTLs (× A's clock drift), run for real. */
export default async function SweepPage() {
  const data = await sweepPageData(await readCredentials());
  return (
    <main className="mx-auto max-w-6xl space-y-4 px-4 py-4">
      <SiteHeader subtitle="Sweep the pause" />
      <p className="max-w-3xl">
        The pause story at every point of a grid: A takes the lease and writes, B waits, and A freezes in its critical
        window (after its lease check, before its write) for the pause. If the pause outlasts A&apos;s lease by the
        database&apos;s clock, B takes over and writes, and A&apos;s write after the freeze is stale. Each point runs
        twice, each run with two real worker processes in a private lab of its own: without fencing, where the stale
        write is a lost update, and fenced, where the row rejects it.
      </p>
      {data.allowed ? (
        <SweepPanel mayStart={data.mayStart} {...(data.latest ? { initial: data.latest } : {})} />
      ) : (
        <p className="rounded-lg border border-amber-300 p-4 dark:border-amber-700">
          A sweep starts real worker processes: it is run by the trainer, or from a browser with a private lab of its
          own. Enter the trainer key, or{' '}
          <Link href="/" className="font-semibold underline">
            open a private lab on the home page
          </Link>{' '}
          first.
        </p>
      )}
    </main>
  );
}
