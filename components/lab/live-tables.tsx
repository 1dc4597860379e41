'use client';

import { useEffect, useRef, useState } from 'react';
import { isFencedKind, runsOnFailoverPair, takesTraineeGuard } from '@/lib/labs/traits';
import { LABS } from '@/lib/model/lab/lab-kinds';
import { clock } from './format';
import { useLabStore } from './lab-store-provider';
import { useTablesView } from './replay/use-tables-view';
import { guardHeading, useLastVerdicts } from './your-guard/last-verdict';

const FLASH_MS = 1_500;

/** True for a moment after `value` changes: to highlight what just changed without moving it. */
function useFlash(value: unknown): boolean {
  const [flash, setFlash] = useState(false);
  const first = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the flash is triggered by a change of value.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    setFlash(true);
    const timer = setTimeout(() => setFlash(false), FLASH_MS);
    return () => clearTimeout(timer);
  }, [value]);
  return flash;
}

const cell = 'px-3 py-2 font-mono text-base';
const head = 'px-3 py-2 text-left text-sm font-medium text-slate-600 dark:text-slate-400';
const flashClass = (on: boolean) =>
  `transition-colors duration-700 ${on ? 'bg-yellow-200 dark:bg-yellow-800' : 'bg-transparent'}`;

/**
 * The lab's row as it is in the database, and its lease with a countdown by the database's clock;
 * while replaying, both as they were at the moment, and labelled so.
 */
export function LiveTables() {
  const kind = useLabStore((s) => s.kind);
  const labId = useLabStore((s) => s.lab);
  const lastVerdict = useLastVerdicts((s) => s.byLab[labId]);
  const { row, lease, now, replayLabel, atMoment } = useTablesView();
  const rowFlash = useFlash(row ? `${row.value}/${row.lastToken}` : undefined);
  const leaseFlash = useFlash(lease ? `${lease.holder}/${lease.token}` : undefined);
  const table = LABS[kind].table;
  const pair = runsOnFailoverPair(kind);
  const remaining = lease ? lease.expiresAt - now : 0;

  return (
    <div className="grid gap-4 md:grid-cols-2">
      <section aria-labelledby="row-heading" className="rounded-lg border border-slate-200 dark:border-slate-800">
        <h2
          id="row-heading"
          className="border-b border-slate-200 px-3 py-2 text-lg font-semibold dark:border-slate-800"
        >
          {pair ? 'fo_rows' : table}
          {pair ? (
            // The failover lab's row lives on its pair (row 8 of unguarded_rows only reserves its place).
            <span className="ml-2 text-sm font-normal text-slate-700 dark:text-slate-300">
              (on the server that answers: the primary, or the standby once promoted)
            </span>
          ) : takesTraineeGuard(kind) ? (
            <span data-testid="guard-heading" className="ml-2 text-sm font-normal text-slate-700 dark:text-slate-300">
              ({guardHeading(lastVerdict)})
            </span>
          ) : table === 'unguarded_rows' && isFencedKind(kind) ? (
            // The fenced labs on this table (the delayed packet, the drifting clock) check the token in the write's own statement.
            <span className="ml-2 text-sm font-normal text-slate-700 dark:text-slate-300">
              (the token checked in the write's own statement)
            </span>
          ) : table === 'unguarded_rows' ? (
            <span className="ml-2 text-sm font-normal text-rose-700 dark:text-rose-300">(no guard: a broken lab)</span>
          ) : null}
        </h2>
        <table className="w-full">
          <ReplayCaption label={replayLabel} />
          <thead>
            <tr>
              <th scope="col" className={head}>
                id
              </th>
              <th scope="col" className={head}>
                value
              </th>
              <th scope="col" className={head}>
                last_token
              </th>
              <th scope="col" className={head}>
                updated
              </th>
            </tr>
          </thead>
          <tbody>
            {row ? (
              <tr className={flashClass(rowFlash)} data-testid="lab-row">
                <td className={cell}>{row.id ?? '–'}</td>
                <td className={`${cell} font-semibold`}>{row.value}</td>
                <td className={`${cell} font-semibold`}>{row.lastToken}</td>
                <td className={`${cell} text-sm`}>{clock(row.updatedAt)}</td>
              </tr>
            ) : (
              <tr>
                <td colSpan={4} className="px-3 py-3 text-slate-600 dark:text-slate-400">
                  {atMoment ? 'No write yet at this moment.' : 'No row yet: reset the lab or start a worker.'}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="lease-heading" className="rounded-lg border border-slate-200 dark:border-slate-800">
        <h2
          id="lease-heading"
          className="border-b border-slate-200 px-3 py-2 text-lg font-semibold dark:border-slate-800"
        >
          leases
        </h2>
        <table className="w-full">
          <ReplayCaption label={replayLabel} />
          <thead>
            <tr>
              <th scope="col" className={head}>
                holder
              </th>
              <th scope="col" className={head}>
                token
              </th>
              <th scope="col" className={head}>
                expires (database clock)
              </th>
            </tr>
          </thead>
          <tbody>
            {lease ? (
              <tr className={flashClass(leaseFlash)} data-testid="lab-lease">
                <td className={`${cell} font-semibold`}>{lease.holder}</td>
                <td className={`${cell} font-semibold`}>{lease.token}</td>
                <td className={`${cell} tabular-nums`}>
                  {remaining > 0
                    ? `in ${(remaining / 1000).toFixed(1)} s`
                    : `expired ${(-remaining / 1000).toFixed(1)} s ago`}
                </td>
              </tr>
            ) : (
              <tr>
                <td colSpan={3} className="px-3 py-3 text-slate-600 dark:text-slate-400">
                  Nobody holds the lease.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </section>
    </div>
  );
}

/** Says, on each table, that it shows a replayed moment and not the database as it is now. */
function ReplayCaption({ label }: { label: string | undefined }) {
  if (!label) return null;
  return (
    <caption
      data-testid="replay-caption"
      className="bg-violet-100 px-3 py-1 text-left text-sm font-semibold text-violet-900 dark:bg-violet-950 dark:text-violet-100"
    >
      {label}
    </caption>
  );
}
