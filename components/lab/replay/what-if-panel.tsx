'use client';

import { useId, useState } from 'react';
import { forkWhatIfAction } from '@/app/actions';
import { Marked } from '@/components/glyph';
import { isFencedKind, PAUSE_FENCED, PAUSE_UNFENCED } from '@/lib/labs/traits';
import {
  FENCING_MODES,
  type FencingMode,
  hasPauseStory,
  WHAT_IF_LIMITS,
  whatIfDefaults,
  whatIfDefaultsInWords,
} from '@/lib/model/history/what-if-settings';
import { NumberField } from '../controls/number-field';
import { controlButton } from '../controls/styles';
import { useLabStore } from '../lab-store-provider';

const seconds = (ms: number) => ms / 1000;
const toMs = (s: number) => Math.round(s * 1000);

/**
 * "What if…" at the moment shown: the story runs again for real in a new private lab of this
 * browser's, with other settings, and opens beside this lab on /compare. This lab is only read.
 */
export function WhatIfPanel({ moment }: { moment: number }) {
  const lab = useLabStore((s) => s.lab);
  const kind = useLabStore((s) => s.kind);
  const events = useLabStore((s) => s.events);
  const [timings, setTimings] = useState(() => whatIfDefaults(events));
  const [origin] = useState(() => whatIfDefaultsInWords(events));
  const [fencing, setFencing] = useState<FencingMode>(kind === PAUSE_FENCED ? PAUSE_FENCED : PAUSE_UNFENCED);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const noteId = useId();
  const originId = useId();
  const first = events[0]?.at;
  if (!hasPauseStory(kind) || first === undefined) return null;
  const atMs = Math.max(0, Math.round(moment - first));

  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const result = await forkWhatIfAction({ lab, atMs, ...timings, fencing });
      // A whole navigation, not the router's: the action may have just set this browser's owner cookie, and
      // the router's refresh after it would race a client-side push.
      if (result.ok)
        window.location.assign(`/compare?a=${encodeURIComponent(lab)}&b=${encodeURIComponent(result.data.id)}`);
      else setError(result.error.message);
    } catch {
      // The action threw only if the server could not be reached: its refusals come back as results.
      setError('the server could not be reached');
    } finally {
      setBusy(false);
    }
  };
  const field = (label: string, key: keyof typeof timings) => (
    <NumberField
      label={label}
      value={seconds(timings[key])}
      min={seconds(WHAT_IF_LIMITS[key].min)}
      max={seconds(WHAT_IF_LIMITS[key].max)}
      step={0.1}
      describedBy={`${noteId} ${originId}`}
      onChange={(value) => setTimings((t) => ({ ...t, [key]: toMs(value) }))}
    />
  );

  return (
    <details className="rounded-md border border-slate-300 px-3 py-2 dark:border-slate-700">
      <summary className="cursor-pointer font-semibold">What if… (run the story again from {seconds(atMs)} s)</summary>
      <p id={noteId} className="mt-2 max-w-3xl text-sm">
        The story runs again for real, in a new private lab of yours, beside this one: new worker processes A and B,
        with your settings. What carries over from this moment is what the database held: the row&apos;s value and token
        (a fenced row is born at the newest token handed out, so no older grant can write it), and the token sequence,
        already past every token seen here. A frozen process cannot be resumed from the past: A takes the lease again
        and writes, freezes in its critical window for the pause length, B starts and takes over if A&apos;s lease runs
        out by the database&apos;s clock, and A wakes and sends its late write. This lab is only read: its history stays
        exactly as it is.
      </p>
      <p id={originId} className="mt-2 max-w-3xl text-sm" data-testid="what-if-origin">
        {origin}
      </p>
      <div className="mt-2 flex flex-wrap items-end gap-3">
        {field('Pause length (s)', 'pauseMs')}
        {field('Lease TTL (s)', 'leaseTtlMs')}
        {field('Renew every (s)', 'renewEveryMs')}
        <fieldset className="grid gap-1 text-sm font-medium">
          <legend>Fencing</legend>
          <div className="flex gap-3">
            {FENCING_MODES.map((mode) => (
              <label key={mode} className="flex items-center gap-1">
                <input
                  type="radio"
                  name={`${noteId}-fencing`}
                  checked={fencing === mode}
                  onChange={() => setFencing(mode)}
                />
                {isFencedKind(mode) ? 'on (token checked)' : 'off (no token check)'}
              </label>
            ))}
          </div>
        </fieldset>
        <button type="button" className={controlButton} onClick={run} disabled={busy}>
          {busy ? 'Starting the what-if…' : 'Run the what-if'}
        </button>
      </div>
      <p role="alert" className="mt-1 font-semibold text-rose-800 dark:text-rose-300">
        {error ? <Marked mark="✗">{error}</Marked> : null}
      </p>
    </details>
  );
}
