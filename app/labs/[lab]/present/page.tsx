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
 * Like the walkthrough page, arriving runs the first step (a reset) when this browser drives, and
 * `?step=N` runs the steps before N for real first.
 */
export default async function PresenterPage({ params, searchParams }: Props) {
  const { lab, canDrive } = await labForPage((await params).lab);
  const asked = Number.parseInt((await searchParams).step ?? '1', 10);
  const steps = walkthroughFor(lab.kind).length;
  const step = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, steps) - 1 : 0;
  return (
    <PresenterView lab={lab} canDrive={canDrive} subtitle={`Presenter: ${summaryTitle(lab)}`} initialStep={step} />
  );
}
