import type { LeaseView } from '@/lib/model/core/table-views';
import { formatDbTime } from './protected-rows-table';

export function LeasesTable({ leases }: { leases: LeaseView[] }) {
  return (
    <section aria-labelledby="leases-heading" className="rounded-lg border border-slate-200 dark:border-slate-800">
      <h2
        id="leases-heading"
        className="border-b border-slate-200 px-4 py-3 text-lg font-semibold dark:border-slate-800"
      >
        leases
      </h2>
      {leases.length === 0 ? (
        <p className="px-4 py-6 text-slate-600 dark:text-slate-400">No lease has been granted yet.</p>
      ) : (
        <table className="w-full text-left text-base">
          <thead className="text-sm text-slate-600 dark:text-slate-400">
            <tr>
              <th scope="col" className="px-4 py-2 font-medium">
                resource
              </th>
              <th scope="col" className="px-4 py-2 font-medium">
                holder
              </th>
              <th scope="col" className="px-4 py-2 font-medium">
                token
              </th>
              <th scope="col" className="px-4 py-2 font-medium">
                state (database clock)
              </th>
            </tr>
          </thead>
          <tbody className="font-mono">
            {leases.map((lease) => (
              <tr key={lease.resource} className="border-t border-slate-100 dark:border-slate-900">
                <td className="px-4 py-2">{lease.resource}</td>
                <td className="px-4 py-2">{lease.holder}</td>
                <td className="px-4 py-2 font-semibold">{lease.token}</td>
                <td className="px-4 py-2 text-sm">
                  {lease.expired
                    ? `expired at ${formatDbTime(lease.expiresAt)}`
                    : `held, expires in ${(lease.remainingMs / 1000).toFixed(1)} s (${formatDbTime(lease.expiresAt)})`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
