import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { LabPageShell } from '@/components/lab/lab-page-shell';
import { LabView } from '@/components/lab/lab-view';
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
    <LabPageShell
      lab={lab}
      mode="free"
      subtitle={LABS[lab].title}
      links={
        <Link href={`/labs/${lab}/walkthrough`} className="text-base font-semibold underline">
          Walkthrough of this lab
        </Link>
      }
    >
      <LabView lab={lab} />
    </LabPageShell>
  );
}
