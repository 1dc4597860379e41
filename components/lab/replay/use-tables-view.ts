'use client';

import { useMemo } from 'react';
import { leaseAt, rowAt } from '@/lib/model/history/replay';
import { useLabStore } from '../lab-store-provider';
import { useViewMoment, useViewMomentLabel, useViewNow } from './use-replay-view';

export type TableRow = { id: number | undefined; value: string; lastToken: number; updatedAt: number };
export type TableLease = { holder: string; token: number; expiresAt: number };

export type TablesView = {
  row: TableRow | undefined;
  lease: TableLease | undefined;
  /** The clock the lease's countdown is read against: the database's, or the replayed moment. */
  now: number;
  /** Which moment the tables show: "as at 12.3 s (replay)", "as at step 3, …", "live now, 38 s after step 3"; undefined live. */
  replayLabel: string | undefined;
  /** Whether the tables show a moment gone by (a replay, a step gone past), not the lab live. */
  atMoment: boolean;
};

/**
 * The row and the lease the tables show: live, as the latest snapshot has them in the database; or,
 * while a moment is shown (a replay, or a walkthrough step the lab has gone past), as they were at
 * the moment, rebuilt from the history by the timeline's reducer.
 */
export function useTablesView(): TablesView {
  const liveRow = useLabStore((s) => s.snapshot?.row);
  const liveLease = useLabStore((s) => s.snapshot?.lease);
  const events = useLabStore((s) => s.events);
  const replayAt = useViewMoment();
  const label = useViewMomentLabel();
  const now = useViewNow(100);
  const replayed = useMemo(() => {
    if (replayAt === undefined) return undefined;
    const row = rowAt(events, replayAt);
    const write = row ? events.find((event) => event.id === row.eventId) : undefined;
    return {
      row: row && { id: write?.rowId, value: row.value, lastToken: row.lastToken, updatedAt: write?.at ?? replayAt },
      lease: leaseAt(events, replayAt),
    };
  }, [events, replayAt]);
  if (!replayed || replayAt === undefined)
    return { row: liveRow, lease: liveLease, now, replayLabel: label, atMoment: false };
  return { ...replayed, now: replayAt, replayLabel: label, atMoment: true };
}
