'use client';

import { Glyph } from '@/components/glyph';
import { nextEventTime, previousEventTime, REPLAY_SPEEDS, type ReplaySpeed } from '@/lib/model/history/replay';
import { momentOffsetLabel } from '@/lib/model/history/replay-view';
import { controlButton } from '../controls/styles';
import { useLabStore } from '../lab-store-provider';
import { CopyMomentLink } from './copy-moment-link';
import { MomentSlider } from './moment-slider';
import { useSettledAnnouncement } from './use-announcement';
import { useMomentPermalink } from './use-moment-permalink';
import { useReplayPlayback } from './use-replay-playback';
import { useReplayBounds } from './use-replay-view';
import { WhatIfPanel } from './what-if-panel';

const ANNOUNCE_QUIET_MS = 600;

/**
 * Scrubbing through the lab's history: the moment, play and pause at a speed, a step to the event
 * before or after, and back to live. It only changes what this browser shows: nothing is sent to
 * the server, so watchers replay as freely as the trainer.
 */
export function ReplayBar() {
  const lab = useLabStore((s) => s.lab);
  const live = useLabStore((s) => s.live);
  const events = useLabStore((s) => s.events);
  const replayAt = useLabStore((s) => s.replayAt);
  const playing = useLabStore((s) => s.replayPlaying);
  const speed = useLabStore((s) => s.replaySpeed);
  const replayTo = useLabStore((s) => s.replayTo);
  const setPlaying = useLabStore((s) => s.setReplayPlaying);
  const setSpeed = useLabStore((s) => s.setReplaySpeed);
  const backToLive = useLabStore((s) => s.backToLive);
  const bounds = useReplayBounds();
  useReplayPlayback(bounds);
  useMomentPermalink(bounds);

  const replaying = replayAt !== undefined;
  const moment = replayAt ?? bounds?.to ?? 0;
  const announcement = useSettledAnnouncement(
    // The moment alone: "of 40.0 s" grows with every live event, and must not be re-announced for it.
    !bounds
      ? ''
      : playing
        ? `Playing at ${speed}×`
        : replaying
          ? `Replay at ${momentOffsetLabel(moment, bounds)}`
          : 'Live',
    ANNOUNCE_QUIET_MS,
  );
  const previous = bounds ? previousEventTime(events, moment) : undefined;
  const next = bounds && replaying ? nextEventTime(events, moment) : undefined;

  const moveTo = (at: number) => {
    setPlaying(false);
    replayTo(at);
  };
  const togglePlay = () => {
    if (!bounds) return;
    if (playing) return setPlaying(false);
    // From the start when live or at the end: "play" means watch the story unfold.
    if (replayAt === undefined || replayAt >= bounds.to) replayTo(bounds.from);
    setPlaying(true);
  };

  return (
    <section
      aria-labelledby="replay-heading"
      className={`space-y-2 rounded-lg border px-4 py-2 ${
        replaying
          ? 'border-violet-400 bg-violet-50 dark:border-violet-700 dark:bg-violet-950'
          : 'border-slate-200 dark:border-slate-800'
      }`}
    >
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
        <h2 id="replay-heading" className="text-lg font-semibold">
          Replay{' '}
          <span className="text-sm font-normal text-slate-600 dark:text-slate-300">
            {replaying ? '(showing a past moment, only in this browser)' : '(live)'}
          </span>
        </h2>
        {bounds ? (
          <MomentSlider bounds={bounds} moment={moment} live={!replaying} onMove={moveTo} />
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">Nothing to replay yet: the lab has no events.</p>
        )}
      </div>
      {bounds ? (
        <div className="flex flex-wrap items-center gap-2">
          <button
            type="button"
            className={controlButton}
            onClick={() => previous !== undefined && moveTo(previous)}
            disabled={previous === undefined}
          >
            <Glyph>|◀</Glyph> Previous event
          </button>
          <button type="button" className={controlButton} onClick={togglePlay}>
            <Glyph>{playing ? '❚❚' : '▶'}</Glyph> {playing ? 'Pause' : 'Play'}
          </button>
          <button
            type="button"
            className={controlButton}
            onClick={() => next !== undefined && moveTo(next)}
            disabled={next === undefined}
          >
            Next event <Glyph>▶|</Glyph>
          </button>
          <label className="flex items-center gap-1 text-sm font-semibold">
            Speed
            <select
              value={speed}
              onChange={(event) => setSpeed(Number(event.target.value) as ReplaySpeed)}
              className="rounded-md border border-slate-300 bg-white px-2 py-1 font-normal dark:border-slate-700 dark:bg-slate-900"
            >
              {REPLAY_SPEEDS.map((s) => (
                <option key={s} value={s}>
                  {s}×
                </option>
              ))}
            </select>
          </label>
          {live && replaying ? (
            <button type="button" className={controlButton} onClick={backToLive}>
              Back to live
            </button>
          ) : null}
          {live ? <CopyMomentLink lab={lab} bounds={bounds} moment={moment} /> : null}
        </div>
      ) : null}
      {live && bounds ? <WhatIfPanel moment={moment} /> : null}
      <p aria-live="polite" className="sr-only">
        {announcement}
      </p>
    </section>
  );
}
