'use client';

import { useMemo } from 'react';
import type { Timeline } from '@/lib/model/timeline';
import { useLabStore } from '../lab-store-provider';
import { describeMarks } from './marks';

/** What the hovered or focused mark means, in words (announced politely to screen readers). */
export function MarkDetails({ timeline }: { timeline: Timeline }) {
  const selected = useLabStore((s) => s.selectedMark);
  const info = useMemo(() => (selected ? describeMarks(timeline).get(selected) : undefined), [selected, timeline]);
  return (
    <div
      aria-live="polite"
      className="min-h-24 border-t border-slate-200 px-4 py-3 text-base dark:border-slate-800"
      data-testid="mark-details"
    >
      {info ? (
        <>
          <p className="font-semibold">{info.title}</p>
          <ul className="mt-1 list-disc pl-5 text-slate-700 dark:text-slate-300">
            {info.lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </>
      ) : (
        <p className="text-slate-600 dark:text-slate-400">
          Hover, click or Tab to any mark for its details. ✓ accepted write, ✗ rejected write, hatched bar: a holder
          that believes it still holds a lease it lost, cross-hatched bar: frozen.
        </p>
      )}
    </div>
  );
}
