import type { Metadata } from 'next';
import Link from 'next/link';
import { FailoverLabPanel } from '@/components/lab/failover/failover-lab-panel';
import { isTrainer } from '@/lib/server/access';
import { readCredentials } from '@/lib/server/request-credentials';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Failover · Fencing Lab' };

type Props = { searchParams: Promise<{ mode?: string; step?: string }> };

/** The failover lab: a primary and a standby of its own; `?mode=sync` and `?step=N` pick the walkthrough's variant and step. */
export default async function FailoverLabPage({ searchParams }: Props) {
  const query = await searchParams;
  const mode = query.mode === 'sync' ? 'sync' : 'async';
  const step = Number.parseInt(query.step ?? '', 10);
  const canDrive = isTrainer(await readCredentials());
  return (
    <main className="mx-auto max-w-6xl space-y-4 p-4">
      <nav aria-label="Breadcrumb" className="text-base">
        <Link href="/" className="underline">
          Fencing Lab
        </Link>{' '}
        / Failover
      </nav>
      <h1 className="text-2xl font-bold">Failover: is the token sequence durable when the primary dies?</h1>
      <p className="max-w-3xl">
        The lock service’s lease table, token sequence and protected row live on a primary with a streaming standby: two
        real PostgreSQL servers this lab starts from the binaries the app ships. Its history is kept in the app’s own
        database, so the record survives the failover it describes.
      </p>
      <FailoverLabPanel
        mode={mode}
        initialStep={Number.isInteger(step) && step > 0 ? step : undefined}
        canDrive={canDrive}
      />
    </main>
  );
}
