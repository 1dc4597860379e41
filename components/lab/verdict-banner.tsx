'use client';

import { useEffect, useMemo, useRef, useState } from 'react';
import { checkHistory, type Verdict } from '@/lib/model/checker';
import type { WireEvent } from '@/lib/model/wire';
import { useLabStore } from './lab-store-provider';
import { useViewEvents } from './replay/use-replay-view';

// One verdict per version of the log, shared by the banner and the timeline.
const verdicts = new WeakMap<readonly WireEvent[], Verdict>();
function verdictOf(events: readonly WireEvent[]): Verdict {
  let verdict = verdicts.get(events);
  if (!verdict) {
    verdict = checkHistory(events);
    verdicts.set(events, verdict);
  }
  return verdict;
}

const VERDICT_EVERY_MS = 500;

/**
 * The log, at most twice a second: judging a long history takes a while, and the verdict need not
 * follow every single event of a busy lab.
 */
function useThrottledEvents(): readonly WireEvent[] {
  // While replaying, the verdict is on what had happened by the moment.
  const events = useViewEvents();
  const [shown, setShown] = useState(events);
  const last = useRef(0);
  useEffect(() => {
    const wait = last.current + VERDICT_EVERY_MS - Date.now();
    const timer = setTimeout(
      () => {
        last.current = Date.now();
        setShown(events);
      },
      Math.max(0, wait),
    );
    return () => clearTimeout(timer);
  }, [events]);
  return shown;
}

/** Events named by a violation, for the timeline to mark. */
export function useFlaggedEvents(): Set<number> {
  const events = useThrottledEvents();
  return useMemo(() => new Set(verdictOf(events).violations.flatMap((v) => v.eventIds)), [events]);
}

/** The history checker's verdict on everything this lab recorded, live. */
export function VerdictBanner() {
  const events = useThrottledEvents();
  const verdict = useMemo(() => verdictOf(events), [events]);
  const replaying = useLabStore((s) => s.replayAt !== undefined);
  if (verdict.checked.writes === 0 && verdict.violations.length === 0) return null;
  const scope = replaying ? ' up to the replay moment' : '';
  const count = verdict.violations.length;
  // Only the headline is a live region, so that a screen reader hears the verdict change, not
  // every new write or every new line of the list.
  return verdict.ok ? (
    <div className="rounded-lg border border-emerald-300 bg-emerald-50 px-3 py-2 text-base dark:border-emerald-800 dark:bg-emerald-950">
      <strong role="status">✓ Checker: no violation</strong> in {plural(verdict.checked.writes, 'accepted write')} and{' '}
      {plural(verdict.checked.grants, 'grant')}
      {scope}.
    </div>
  ) : (
    <div className="rounded-lg border border-rose-400 bg-rose-50 px-3 py-2 text-base dark:border-rose-700 dark:bg-rose-950">
      <p>
        <strong role="alert">
          ✗ Checker: {count} violation{count === 1 ? '' : 's'}
        </strong>{' '}
        {scope ? `${scope.trim()} ` : ''}(marked ⚠ on the timeline)
      </p>
      <ul className="mt-1 list-disc pl-5">
        {verdict.violations.slice(0, 5).map((violation) => (
          <li key={`${violation.rule}:${violation.eventIds.join(',')}`}>{violation.message}</li>
        ))}
      </ul>
      {count > 5 ? <p>…and {count - 5} more.</p> : null}
    </div>
  );
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
