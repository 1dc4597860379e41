import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { LabNav } from '@/components/lab/lab-nav';
import { LabView } from '@/components/lab/lab-view';
import { ThemeToggle } from '@/components/theme-toggle';
import { isLabId, LABS } from '@/lib/model/labs';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ lab: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { lab } = await params;
  return { title: isLabId(lab) ? `${LABS[lab].title} lab · Fencing Lab` : 'Fencing Lab' };
}

export default async function LabPage({ params }: Props) {
  const { lab } = await params;
  if (!isLabId(lab)) notFound();
  return (
    <main className="mx-auto max-w-[110rem] space-y-4 px-4 py-4">
      <header className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold">
          <Link href="/" className="hover:underline">
            Fencing Lab
          </Link>{' '}
          <span className="font-normal">· {LABS[lab].title}</span>
        </h1>
        <div className="flex items-center gap-4">
          <Link href={`/labs/${lab}/walkthrough`} className="text-base font-semibold underline">
            Walkthrough of this lab
          </Link>
          <ThemeToggle />
        </div>
      </header>
      <LabNav current={lab} mode="free" />
      <LabView lab={lab} />
    </main>
  );
}
