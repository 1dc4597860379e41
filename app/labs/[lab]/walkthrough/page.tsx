import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { LabNav } from '@/components/lab/lab-nav';
import { LabView } from '@/components/lab/lab-view';
import { ThemeToggle } from '@/components/theme-toggle';
import { isLabId, LABS } from '@/lib/model/labs';

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
  const step = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, 7) - 1 : 0;
  return (
    <main className="mx-auto max-w-[110rem] space-y-4 px-4 py-4">
      <header className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold">
          <Link href="/" className="hover:underline">
            Fencing Lab
          </Link>{' '}
          <span className="font-normal">· The pause{lab === 'fenced' ? '' : `: ${LABS[lab].title}`}</span>
        </h1>
        <ThemeToggle />
      </header>
      <LabNav current={lab} mode="walkthrough" />
      <LabView lab={lab} walkthroughStep={step} />
    </main>
  );
}
