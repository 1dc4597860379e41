import Link from 'next/link';
import { WORKER_LAB_IDS } from '@/lib/model/lab/lab-kinds';
import { LabTitle } from './lab-title';

/** The labs side by side: the fenced one first, then each mistake. */
export function LabNav({ current, mode }: { current: string; mode: 'free' | 'walkthrough' }) {
  return (
    <nav aria-label="Labs">
      <ul className="flex flex-wrap gap-1.5">
        {WORKER_LAB_IDS.map((lab) => (
          <li key={lab}>
            <Link
              href={mode === 'walkthrough' ? `/labs/${lab}/walkthrough` : `/labs/${lab}`}
              aria-current={lab === current ? 'page' : undefined}
              className={`block rounded-md border px-3 py-1.5 text-sm font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 ${
                lab === current
                  ? 'border-sky-700 bg-sky-700 text-white dark:border-sky-400 dark:bg-sky-400 dark:text-slate-950'
                  : 'border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-900'
              }`}
            >
              <LabTitle lab={lab} />
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
