'use client';

import { useState } from 'react';
import type { ReplayBounds } from '@/lib/model/history/replay';
import { momentLink } from '@/lib/model/history/replay-view';
import { controlButton } from '../controls/styles';

/** Copies the permalink to the moment on screen; where the clipboard is refused, shows it to copy by hand. */
export function CopyMomentLink({ lab, bounds, moment }: { lab: string; bounds: ReplayBounds; moment: number }) {
  const [result, setResult] = useState<{ copied: boolean; link: string } | undefined>(undefined);
  const copy = async () => {
    const link = momentLink(window.location.origin, lab, moment, bounds.from);
    try {
      await navigator.clipboard.writeText(link);
      setResult({ copied: true, link });
    } catch {
      // The clipboard refused (no permission, no secure page): the link is shown to copy by hand.
      setResult({ copied: false, link });
    }
  };
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button type="button" className={controlButton} onClick={() => void copy()}>
        Copy link to this moment
      </button>
      <p role="status" className="text-sm">
        {result?.copied ? `Copied: ${result.link}` : ''}
        {result && !result.copied ? (
          <>
            The clipboard is not available here; copy the link:{' '}
            <input
              readOnly
              aria-label="Link to this moment"
              value={result.link}
              onFocus={(event) => event.target.select()}
              className="w-80 rounded border border-slate-300 px-1 font-mono text-xs dark:border-slate-700"
            />
          </>
        ) : null}
      </p>
    </div>
  );
}
