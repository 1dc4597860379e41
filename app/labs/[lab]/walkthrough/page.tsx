import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { LabPageShell } from '@/components/lab/lab-page-shell';
import { LabView } from '@/components/lab/lab-view';
import { isLabId, LABS } from '@/lib/model/labs';
import { walkthroughFor } from '@/lib/model/walkthrough';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ lab: string }>; searchParams: Promise<{ step?: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { lab } = await params;
  return { title: isLabId(lab) ? `The pause: ${LABS[lab].title} · Fencing Lab` : 'Fencing Lab' };
}

/** The guided walkthrough; `?step=N` (from 1) runs the earlier steps for real, then shows step N. */
export default async function WalkthroughPage({ params, searchParams }: Props) {
  const { lab } = await params;
  if (!isLabId(lab)) notFound();
  const asked = Number.parseInt((await searchParams).step ?? '1', 10);
  const step = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, walkthroughFor(lab).length) - 1 : 0;
  return (
    <LabPageShell lab={lab} mode="walkthrough" subtitle={`The pause${lab === 'fenced' ? '' : `: ${LABS[lab].title}`}`}>
      <LabView lab={lab} walkthroughStep={step} />
    </LabPageShell>
  );
}
