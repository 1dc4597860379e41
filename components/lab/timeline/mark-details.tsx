'use client';

import { Glyph } from '@/components/glyph';
import type { MarkText } from '@/lib/model/timeline/timeline-layout';

/** What the panel says while no mark is chosen: the legend in full, in one line, or nothing. */
export type DetailsHint = 'full' | 'brief' | 'none';

/** What the hovered, clicked or focused mark means, in words (announced politely to screen readers). */
export function MarkDetails({
  marks,
  selected,
  fallback,
  hint = 'full',
}: {
  marks: readonly MarkText[];
  selected: string | undefined;
  /** The focused mark's words, when it is not among `marks`. */
  fallback: MarkText | undefined;
  /** The hint while no mark is chosen; short or none keep no room for a mark's words until one is. */
  hint?: DetailsHint;
}) {
  const info =
    selected === undefined
      ? undefined
      : (marks.find((m) => m.key === selected) ?? (fallback?.key === selected ? fallback : undefined));
  const brief = hint !== 'full';
  if (!info && hint === 'none') return null;
  return (
    <div
      aria-live="polite"
      className={`${brief ? 'py-1.5' : 'min-h-24 py-3'} border-t border-slate-200 px-4 text-base dark:border-slate-800`}
      data-testid="mark-details"
    >
      {info ? (
        <>
          <p className="font-semibold">
            {info.flagged ? (
              <>
                <Glyph>⚠</Glyph> Violation:{' '}
              </>
            ) : null}
            {info.title}
          </p>
          <ul className="mt-1 list-disc pl-5 text-slate-700 dark:text-slate-300">
            {info.lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </>
      ) : brief ? (
        <p className="text-slate-600 dark:text-slate-400">
          Hover or click a mark for its details: ✓ accepted, ✗ rejected.
        </p>
      ) : (
        <p className="text-slate-600 dark:text-slate-400">
          Hover or click any mark, or Tab to the marks and move with the arrow keys, for its details. ✓ accepted write,
          ✗ rejected write, hatched bar: a holder that believes it still holds a lease it lost, cross-hatched bar:
          frozen.
        </p>
      )}
    </div>
  );
}
