'use client';

import { useMemo } from 'react';
import { checkHistory } from '@/lib/model/checker';
import { useLabStore } from './lab-store-provider';

/** Events named by a violation, for the timeline to mark. */
export function useFlaggedEvents(): Set<number> {
  const events = useLabStore((s) => s.events);
  return useMemo(() => new Set(checkHistory(events).violations.flatMap((v) => v.eventIds)), [events]);
}

/** The history checker's verdict on everything this lab recorded, live. */
export function VerdictBanner() {
  const events = useLabStore((s) => s.events);
  const verdict = useMemo(() => checkHistory(events), [events]);
  if (verdict.checked.writes === 0 && verdict.violations.length === 0) return null;
  return verdict.ok ? (
    <p
      role="status"
      className="rounded-lg border border-emerald-300 bg-emerald-50 px-3 py-2 text-base dark:border-emerald-800 dark:bg-emerald-950"
    >
      <strong>✓ Checker:</strong> no violation in {verdict.checked.writes} accepted writes and {verdict.checked.grants}{' '}
      grants.
    </p>
  ) : (
    <div
      role="alert"
      className="rounded-lg border border-rose-400 bg-rose-50 px-3 py-2 text-base dark:border-rose-700 dark:bg-rose-950"
    >
      <p>
        <strong>
          ✗ Checker: {verdict.violations.length} violation{verdict.violations.length === 1 ? '' : 's'}
        </strong>{' '}
        (marked ⚠ on the timeline)
      </p>
      <ul className="mt-1 list-disc pl-5">
        {verdict.violations.slice(0, 5).map((violation) => (
          <li key={`${violation.rule}:${violation.eventIds.join(',')}`}>{violation.message}</li>
        ))}
      </ul>
      {verdict.violations.length > 5 ? <p>…and {verdict.violations.length - 5} more.</p> : null}
    </div>
  );
}
