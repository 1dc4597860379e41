import type { Metadata } from 'next';
import Link from 'next/link';
import { LabPageShell } from '@/components/lab/lab-page-shell';
import { LabView } from '@/components/lab/lab-view';
import { PAUSE_FENCED } from '@/lib/labs/traits';
import { summaryTitle } from '@/lib/model/lab/lab-instance';
import { walkthroughFor } from '@/lib/model/walkthrough/walkthrough';
import { deepLinkedStep } from '@/lib/model/walkthrough/walkthrough-deep-link';
import { labForPage } from '@/lib/server/lab-page-data';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ lab: string }>; searchParams: Promise<{ step?: string | string[] }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { lab } = await labForPage((await params).lab);
  return { title: `The pause: ${summaryTitle(lab)} · Fencing Lab` };
}

/**
 * The guided walkthrough. Arriving (or reloading) changes nothing: the page shows the step the lab is
 * at. `?step=N` (from 1) is a deep link: it shows step N and offers to run the steps up to it.
 */
export default async function WalkthroughPage({ params, searchParams }: Props) {
  const access = await labForPage((await params).lab);
  const { lab } = access;
  const step = deepLinkedStep((await searchParams).step, walkthroughFor(lab.kind).length);
  const subtitle =
    lab.kind === PAUSE_FENCED && lab.visibility === 'shared' ? 'The pause' : `The pause: ${summaryTitle(lab)}`;
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
      <LabView lab={lab} canDrive={access.canDrive} walkthrough={{ initialStep: step }} />
    </LabPageShell>
  );
}
