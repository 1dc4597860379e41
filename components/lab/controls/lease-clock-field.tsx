'use client';

import { useId } from 'react';
import { LEASE_CLOCKS, type LeaseClock } from '@/lib/model/lab/worker-clock';

const WORDS: Record<LeaseClock, string> = {
  own: 'its own clock',
  database: "the database's clock (it asks)",
};

/** The drifting-clock labs' choice of whose clock the next worker judges its lease by before each write. */
export function LeaseClockField({
  value,
  onChange,
  describedBy,
}: {
  value: LeaseClock;
  onChange: (value: LeaseClock) => void;
  describedBy: string;
}) {
  const id = useId();
  return (
    <label htmlFor={id} className="grid gap-1 text-sm font-medium">
      It judges its lease by
      <select
        id={id}
        value={value}
        aria-describedby={describedBy}
        onChange={(event) => {
          const chosen = LEASE_CLOCKS.find((clock) => clock === event.target.value);
          if (chosen) onChange(chosen);
        }}
        className="rounded-md border border-slate-300 bg-white px-2 py-1 text-base dark:border-slate-700 dark:bg-slate-900"
      >
        {LEASE_CLOCKS.map((clock) => (
          <option key={clock} value={clock}>
            {WORDS[clock]}
          </option>
        ))}
      </select>
    </label>
  );
}
