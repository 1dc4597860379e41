import type { Metadata } from 'next';
import { PresenterView } from '@/components/lab/presenter/presenter-view';
import { summaryTitle } from '@/lib/model/lab-instance';
import { walkthroughFor } from '@/lib/model/walkthrough';
import { labForPage } from '@/lib/server/lab-page-data';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ lab: string }>; searchParams: Promise<{ step?: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { lab } = await labForPage((await params).lab);
  return { title: `Presenter: ${summaryTitle(lab)} · Fencing Lab` };
}

/**
 * Presenter mode, for a trainer projecting the lab: the walkthrough in large type with hotkeys.
 * Arriving changes nothing (the trainer may open it in the middle of a session): → runs the first
 * step, a reset. `?step=N` is a deep link: it runs the steps up to N for real, as the walkthrough's does.
 */
export default async function PresenterPage({ params, searchParams }: Props) {
  const { lab, canDrive } = await labForPage((await params).lab);
  const raw = (await searchParams).step;
  const asked = raw === undefined ? Number.NaN : Number.parseInt(raw, 10);
  const steps = walkthroughFor(lab.kind).length;
  const step = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, steps) - 1 : -1;
  return (
    <PresenterView lab={lab} canDrive={canDrive} subtitle={`Presenter: ${summaryTitle(lab)}`} initialStep={step} />
  );
}
