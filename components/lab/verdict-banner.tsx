'use client';

import { startTransition, useEffect, useState } from 'react';
import { Glyph } from '@/components/glyph';
import { hasDetail } from '@/lib/model/checker/checker-violations';
import { expectsViolation } from '@/lib/model/soak/soak-verdict';
import type { LabStoreApi } from './lab-store';
import { useLabStore, useLabStoreApi } from './lab-store-provider';
import { useViewEvents } from './replay/use-replay-view';
import { type Checked, createVerdictFollower, NOTHING_CHECKED, type VerdictFollower } from './verdict-follower';

// One checker per lab store, shared by the banner and the timeline (verdict-follower.ts).
const followers = new WeakMap<LabStoreApi, VerdictFollower>();

/** The verdict on the events shown (while replaying, on what had happened by the moment). */
export function useChecked(): Checked {
  const store = useLabStoreApi();
  let follower = followers.get(store);
  if (!follower) {
    follower = createVerdictFollower();
    followers.set(store, follower);
  }
  const events = useViewEvents();
  useEffect(() => follower.follow(events), [follower, events]);
  // A new verdict is drawn as a transition: React may yield between the banner and the timeline,
  // instead of one frame for both (a sync update from useSyncExternalStore).
  const [checked, setChecked] = useState<Checked>(NOTHING_CHECKED);
  useEffect(() => {
    const update = () => startTransition(() => setChecked(follower.current()));
    update();
    return follower.subscribe(update);
  }, [follower]);
  return checked;
}

/** Events named by a violation, for the timeline to mark. */
export function useFlaggedEvents(): ReadonlySet<number> {
  return useChecked().flagged;
}

/** Violations listed under the headline; the rest are counted. */
const LISTED = 5;

/**
 * The history checker's verdict on everything this lab recorded, live: a lost update is one
 * violation, the rules it broke listed under it. A lab built to fail says "yet" until it has.
 * `listed`: how many violations are listed (presenter mode lists fewer where the screen has no room).
 */
export function VerdictBanner({ listed = LISTED }: { listed?: number }) {
  const { verdict } = useChecked();
  const replaying = useLabStore((s) => s.replayAt !== undefined);
  const stepPast = useLabStore((s) => (s.replayAt === undefined && s.stepMoment?.past ? s.stepMoment.step : undefined));
  const yet = useLabStore((s) => expectsViolation(s.kind)) ? ' yet' : '';
  if (verdict.checked.writes === 0 && verdict.violations.length === 0) return null;
  const scope = replaying ? ' up to the replay moment' : stepPast !== undefined ? ` up to step ${stepPast}` : '';
  const count = verdict.violations.length;
  // Only the headline is a live region, so that a screen reader hears the verdict change, not
  // every new write or every new line of the list.
  return verdict.ok ? (
    <div className="rounded-lg border border-emerald-300 bg-emerald-50 px-3 py-2 text-base dark:border-emerald-800 dark:bg-emerald-950">
      <strong role="status">
        <Glyph>✓</Glyph> Checker: no violation{yet}
      </strong>{' '}
      in {plural(verdict.checked.writes, 'accepted write')} and {plural(verdict.checked.grants, 'grant')}
      {scope}.
    </div>
  ) : (
    <div className="rounded-lg border border-rose-400 bg-rose-50 px-3 py-2 text-base dark:border-rose-700 dark:bg-rose-950">
      <p>
        <strong role="alert">
          <Glyph>✗</Glyph> Checker: {count} violation{count === 1 ? '' : 's'}
        </strong>{' '}
        {scope ? `${scope.trim()} ` : ''}(marked ⚠ on the timeline)
      </p>
      {listed > 0 ? (
        <ul className="mt-1 list-disc pl-5">
          {verdict.violations.slice(0, listed).map((violation) => (
            <li key={`${violation.rule}:${violation.eventIds.join(',')}`}>
              {violation.message}
              {hasDetail(violation) ? (
                <ul className="list-[circle] pl-5 text-sm">
                  {violation.findings.map((finding) => (
                    <li key={`${finding.rule}:${finding.eventIds.join(',')}`}>{finding.message}</li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {count > listed && listed > 0 ? <p>…and {count - listed} more.</p> : null}
    </div>
  );
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
