import type { RowView } from '@/lib/model/core/table-views';

export function ProtectedRowsTable({ rows }: { rows: RowView[] }) {
  return (
    <section aria-labelledby="rows-heading" className="rounded-lg border border-slate-200 dark:border-slate-800">
      <h2 id="rows-heading" className="border-b border-slate-200 px-4 py-3 text-lg font-semibold dark:border-slate-800">
        protected_rows
      </h2>
      {rows.length === 0 ? (
        <p className="px-4 py-6 text-slate-600 dark:text-slate-400">
          No protected rows yet. Start a lab, or run <code className="font-mono">npm run scenario -- pause</code>.
        </p>
      ) : (
        <table className="w-full text-left text-base">
          <thead className="text-sm text-slate-600 dark:text-slate-400">
            <tr>
              <th scope="col" className="px-4 py-2 font-medium">
                id
              </th>
              <th scope="col" className="px-4 py-2 font-medium">
                value
              </th>
              <th scope="col" className="px-4 py-2 font-medium">
                last_token
              </th>
              <th scope="col" className="px-4 py-2 font-medium">
                updated (database time)
              </th>
            </tr>
          </thead>
          <tbody className="font-mono">
            {rows.map((row) => (
              <tr key={row.id} className="border-t border-slate-100 dark:border-slate-900">
                <td className="px-4 py-2">{row.id}</td>
                <td className="px-4 py-2">{row.value}</td>
                <td className="px-4 py-2 font-semibold">{row.lastToken}</td>
                <td className="px-4 py-2 text-sm">{formatDbTime(row.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function formatDbTime(at: Date): string {
  return at.toISOString().replace('T', ' ').replace('Z', ' UTC');
}
