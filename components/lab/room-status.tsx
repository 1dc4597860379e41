'use client';

import { useLabStore } from './lab-store-provider';

/** Whether the lab is live, and how many browsers watch it: for a trainer, the room at a glance. */
export function RoomStatus() {
  const connection = useLabStore((s) => s.connection);
  const viewers = useLabStore((s) => s.snapshot?.viewers);
  const live = connection === 'live';
  return (
    <p data-testid="room-status" className="text-sm text-slate-700 dark:text-slate-300">
      <span aria-hidden="true" className={live ? 'text-emerald-700 dark:text-emerald-400' : 'text-amber-700'}>
        ●{' '}
      </span>
      {live ? 'Live' : connection === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
      {live && viewers !== undefined ? ` · ${viewers} ${viewers === 1 ? 'browser watches' : 'browsers watch'}` : ''}
    </p>
  );
}
