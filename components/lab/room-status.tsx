'use client';

import { useLabStore } from './lab-store-provider';

/**
 * Whether the lab is live, and how many browsers watch it: for a trainer, the room at a glance.
 * The words about the feed are a live region, so that a screen reader hears "Reconnecting…" and
 * "Live again"; the count of browsers, which changes every second, is not.
 */
export function RoomStatus() {
  const connection = useLabStore((s) => s.connection);
  const note = useLabStore((s) => s.connectionNote);
  const reconnected = useLabStore((s) => s.reconnected);
  const viewers = useLabStore((s) => s.snapshot?.viewers);
  const live = connection === 'live';
  const words = live
    ? reconnected
      ? 'Live again'
      : 'Live'
    : `${connection === 'connecting' ? 'Connecting…' : 'Reconnecting…'}${note ? ` (${note})` : ''}`;
  return (
    <p data-testid="room-status" className="text-sm text-slate-700 dark:text-slate-300">
      <span aria-hidden="true" className={live ? 'text-emerald-700 dark:text-emerald-400' : 'text-amber-700'}>
        ●{' '}
      </span>
      <span role="status">{words}</span>
      {live && viewers !== undefined ? ` · ${viewers} ${viewers === 1 ? 'browser watches' : 'browsers watch'}` : ''}
    </p>
  );
}
