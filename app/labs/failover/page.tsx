import type { Metadata } from 'next';
import Link from 'next/link';
import { FailoverLabPanel } from '@/components/lab/failover/failover-lab-panel';
import { LabPageShell } from '@/components/lab/lab-page-shell';
import { FAILOVER_LAB } from '@/lib/model/failover/failover-events';
import { labForPage } from '@/lib/server/lab-page-data';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Failover · Fencing Lab' };

type Props = { searchParams: Promise<{ mode?: string; step?: string }> };

/** The failover lab: a primary and a standby of its own; `?mode=sync` and `?step=N` pick the walkthrough's variant and step. */
export default async function FailoverLabPage({ searchParams }: Props) {
  const query = await searchParams;
  const mode = query.mode === 'sync' ? 'sync' : 'async';
  const step = Number.parseInt(query.step ?? '', 10);
  const access = await labForPage(FAILOVER_LAB, { failoverPage: true });
  return (
    <LabPageShell
      access={access}
      mode="free"
      subtitle="Failover: is the token sequence durable when the primary dies?"
      links={
        <>
          <Link href={`/labs/failover/present?mode=${mode}`} className="text-base font-semibold underline">
            Presenter mode
          </Link>
          {/* Every interleaving of its story, the pair's steps included, on the real UPDATE (nothing committed). */}
          <Link
            href={`/labs/failover/explore${mode === 'sync' ? '?sync=1' : ''}`}
            className="text-base font-semibold underline"
          >
            Explore every interleaving
          </Link>
        </>
      }
    >
      <p className="max-w-4xl">
        The lock service’s lease table, token sequence and protected row live on a primary with a streaming standby: two
        real PostgreSQL servers this lab starts from the binaries the app ships. Its history is the lab’s events in the
        app’s own database, so the record survives the failover it describes.
      </p>
      <FailoverLabPanel
        lab={access.lab}
        mode={mode}
        initialStep={Number.isInteger(step) && step > 0 ? step : undefined}
        canDrive={access.canDrive}
      />
    </LabPageShell>
  );
}
