import type { Metadata } from 'next';
import Link from 'next/link';
import { LabPageShell } from '@/components/lab/lab-page-shell';
import { LabView } from '@/components/lab/lab-view';
import { summaryTitle } from '@/lib/model/lab-instance';
import { walkthroughFor } from '@/lib/model/walkthrough';
import { labForPage } from '@/lib/server/lab-page-data';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ lab: string }>; searchParams: Promise<{ step?: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { lab } = await labForPage((await params).lab);
  return { title: `The pause: ${summaryTitle(lab)} · Fencing Lab` };
}

/** The guided walkthrough; `?step=N` (from 1) runs the earlier steps for real, then shows step N. */
export default async function WalkthroughPage({ params, searchParams }: Props) {
  const access = await labForPage((await params).lab);
  const { lab } = access;
  const asked = Number.parseInt((await searchParams).step ?? '1', 10);
  const steps = walkthroughFor(lab.kind).length;
  const step = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, steps) - 1 : 0;
  const subtitle =
    lab.kind === 'fenced' && lab.visibility === 'shared' ? 'The pause' : `The pause: ${summaryTitle(lab)}`;
  return (
    <LabPageShell
      access={access}
      mode="walkthrough"
      subtitle={subtitle}
      links={
        <Link href={`/labs/${lab.id}/present`} className="text-base font-semibold underline">
          Presenter mode
        </Link>
      }
    >
      <LabView lab={lab} canDrive={access.canDrive} walkthroughStep={step} />
    </LabPageShell>
  );
}
