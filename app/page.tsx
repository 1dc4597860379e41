import { AutoRefresh } from '@/components/lab/auto-refresh';
import { LeasesTable } from '@/components/lab/leases-table';
import { ProtectedRowsTable } from '@/components/lab/protected-rows-table';
import { listProtectedRows } from '@/db/guard';
import { listLeases } from '@/db/leases';

export const dynamic = 'force-dynamic';

export default async function HomePage() {
  const data = await Promise.all([listProtectedRows(), listLeases()]).then(
    ([rows, leases]) => ({ ok: true as const, rows, leases }),
    (error: unknown) => {
      console.error('[page] could not read the database:', error);
      return { ok: false as const };
    },
  );

  return (
    <main className="mx-auto max-w-5xl space-y-6 px-6 py-8">
      <header className="flex flex-wrap items-start justify-between gap-4">
        <div className="space-y-2">
          <h1 className="text-3xl font-bold tracking-tight">Fencing Lab</h1>
          <p className="max-w-3xl text-lg text-slate-700 dark:text-slate-300">
            A lease alone is not safe: a holder that pauses past its lease still believes it owns the resource. Every
            grant carries a token from a database sequence, and the table below rejects any write whose token is older
            than the one it holds.
          </p>
        </div>
        <AutoRefresh />
      </header>
      {data.ok ? (
        <div className="grid gap-6 lg:grid-cols-2">
          <ProtectedRowsTable rows={data.rows} />
          <LeasesTable leases={data.leases} />
        </div>
      ) : (
        <p
          role="alert"
          className="rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
        >
          The database is not reachable. Start the app with <code className="font-mono">npm start</code>, or check{' '}
          <code className="font-mono">DATABASE_URL</code>.
        </p>
      )}
    </main>
  );
}
