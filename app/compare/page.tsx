import type { Metadata } from 'next';
import { CompareView } from '@/components/compare/compare-view';
import { SiteHeader } from '@/components/site-header';
import { describeFork } from '@/lib/model/history/what-if';
import { LABS } from '@/lib/model/lab/lab-kinds';
import { chosenLabs, comparableLabsOf } from '@/lib/server/compare-sources';
import { forkOfLab } from '@/lib/server/lab-page-data';
import { readCredentials } from '@/lib/server/request-credentials';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Compare two runs · Fencing Lab' };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** Two histories, live labs or exported files, on one time axis, with the first point where they differ. */
export default async function ComparePage({ searchParams }: Props) {
  const labs = await comparableLabsOf(await readCredentials());
  const { a, b } = chosenLabs(await searchParams, labs);
  // A what-if fork says what it is and what it started from (only this browser's own labs are forks it sees).
  const notes = await Promise.all(
    [a, b].map(async (lab) => {
      const fork = lab ? await forkOfLab(lab) : undefined;
      if (!lab || !fork) return undefined;
      const original = labs.find((l) => l.id === fork.from);
      const originalName = original ? LABS[original.kind].title : `lab ${fork.from}`;
      return describeFork(`${LABS[lab.kind].title} (${lab.id})`, fork, originalName);
    }),
  );
  return (
    <main className="mx-auto max-w-[110rem] space-y-4 px-4 py-4">
      <SiteHeader subtitle="Compare two runs" />
      {notes.map((note) =>
        note ? (
          <p key={note} data-testid="fork-note" className="max-w-4xl rounded-lg border border-sky-400 px-3 py-2">
            {note}
          </p>
        ) : null,
      )}
      <CompareView labs={labs} initialA={a} initialB={b} />
    </main>
  );
}
