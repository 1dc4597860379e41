import type { Metadata } from 'next';
import { PresenterView } from '@/components/lab/presenter/presenter-view';
import { summaryTitle } from '@/lib/model/lab/lab-instance';
import { walkthroughFor } from '@/lib/model/walkthrough/walkthrough';
import { deepLinkedStep } from '@/lib/model/walkthrough/walkthrough-deep-link';
import { labForPage } from '@/lib/server/lab-page-data';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ lab: string }>; searchParams: Promise<{ step?: string | string[] }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { lab } = await labForPage((await params).lab);
  return { title: `Presenter: ${summaryTitle(lab)} · Fencing Lab` };
}

/**
 * Presenter mode, for a trainer projecting the lab: the walkthrough in large type with hotkeys.
 * Arriving or reloading changes nothing (the trainer may open it in the middle of a session): it
 * shows the step the lab is at. `?step=N` is a deep link: it shows step N and offers to run the
 * steps up to it, as the walkthrough's does.
 */
export default async function PresenterPage({ params, searchParams }: Props) {
  const { lab, canDrive } = await labForPage((await params).lab);
  const step = deepLinkedStep((await searchParams).step, walkthroughFor(lab.kind).length);
  return (
    <PresenterView lab={lab} canDrive={canDrive} subtitle={`Presenter: ${summaryTitle(lab)}`} initialStep={step} />
  );
}
