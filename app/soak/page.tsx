import type { Metadata } from 'next';
import Link from 'next/link';
import { soakReportHref } from '@/lib/model/soak/soak-reports';
import { listSoakReports } from '@/lib/server/soak-reports';

export const metadata: Metadata = { title: 'Soak reports · Fencing Lab' };
export const dynamic = 'force-dynamic';

/** The reports `npm run soak` left in the app's data directory, newest first. */
export default async function SoakReportsPage() {
  const reports = await listSoakReports();
  return (
    <main className="mx-auto max-w-4xl space-y-4 px-4 py-4">
      <h1 className="text-2xl font-bold">
        <Link href="/" className="hover:underline">
          Fencing Lab
        </Link>{' '}
        <span className="font-normal">· Soak reports</span>
      </h1>
      <p>
        Each soak runs chaos aimed at the critical window in every lab (<code>npm run soak -- --minutes N</code>) and
        judges each lab against what it is named for.
      </p>
      {reports.length === 0 ? (
        <p>No soak report yet in this server&apos;s data directory.</p>
      ) : (
        <ul className="list-disc space-y-1 pl-6">
          {reports.map((r) => (
            <li key={r.id}>
              {/* A page of its own, served whole by the route beside this one: not a client-side route. */}
              <a href={soakReportHref(r.id)} className="underline">
                {r.id}
              </a>
              : {r.ok ? 'every lab as expected' : 'NOT as expected'}; {r.minutes} min, seed {r.seed};{' '}
              {r.staleAttempts.toLocaleString('en')} stale writes attempted, {r.staleAcceptedFenced} accepted in the
              fenced labs
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
