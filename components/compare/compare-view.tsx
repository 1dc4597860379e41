'use client';

import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { describeDifference, firstDifference, type RunStep } from '@/lib/model/history-diff';
import type { LabSummary } from '@/lib/model/lab-instance';
import type { WireEvent } from '@/lib/model/wire';
import { MomentSlider } from '../lab/replay/moment-slider';
import type { TimelineMarker } from '../lab/timeline/timeline';
import { CompareSide } from './compare-side';
import { type CompareSource, sourceName, storeOf } from './compare-source';
import { FirstDifferencePanel } from './first-difference';
import { SourcePicker } from './source-picker';
import { useEventsOf, useSharedAxis } from './use-shared-axis';

const MARKER_LABEL = 'first difference';

/** The timeline's mark for the event that began a step (lib/model/timeline-layout-words.ts keys), if it has one. */
function markKeyOf(step: RunStep, events: readonly WireEvent[]): string | undefined {
  const event = events.find((e) => e.id === step.eventId);
  if (!event) return undefined;
  if (event.kind === 'write_accepted' || event.kind === 'write_rejected') return `write:${event.id}`;
  if (event.kind === 'pause_started') return `pause:${event.id}`;
  if (event.kind === 'lease_acquired') return `lease:${event.actor}:${event.id}`;
  if (event.kind === 'lease_lost') return `loss:${event.id}`;
  if (event.kind.startsWith('worker_')) return `life:${event.id}`;
  return undefined;
}

const labSource = (lab: LabSummary | undefined): CompareSource | undefined =>
  lab ? { type: 'lab', lab, serial: 0 } : undefined;

/** The comparison: two pickers, the first difference in words, one moment slider, the two timelines. */
export function CompareView({
  labs,
  initialA,
  initialB,
}: {
  labs: readonly LabSummary[];
  initialA: LabSummary | undefined;
  initialB: LabSummary | undefined;
}) {
  const [a, setA] = useState<CompareSource | undefined>(() => labSource(initialA));
  const [b, setB] = useState<CompareSource | undefined>(() => labSource(initialB));
  const storeA = useMemo(() => (a ? storeOf(a) : undefined), [a]);
  const storeB = useMemo(() => (b ? storeOf(b) : undefined), [b]);
  const eventsA = useEventsOf(storeA);
  const eventsB = useEventsOf(storeB);
  const axis = useSharedAxis({ store: storeA, events: eventsA }, { store: storeB, events: eventsB });

  // The address names the labs compared (not files, which stay in this browser), so it can be shared.
  useEffect(() => {
    const query = new URLSearchParams();
    if (a?.type === 'lab') query.set('a', a.lab.id);
    if (b?.type === 'lab') query.set('b', b.lab.id);
    const search = query.size ? `?${query}` : '';
    if (window.location.search !== search) window.history.replaceState(null, '', `/compare${search}`);
  }, [a, b]);

  const both = storeA && storeB && eventsA.length > 0 && eventsB.length > 0;
  // Read again as the logs grow (a long history arrives in many batches): deferred, so that React may
  // skip the batches in between instead of comparing the whole of both runs at every one.
  const [shownA, shownB] = [useDeferredValue(eventsA), useDeferredValue(eventsB)];
  const difference = useMemo(() => (both ? firstDifference(shownA, shownB) : undefined), [both, shownA, shownB]);
  const names = useMemo(() => {
    const [x, y] = [a ? sourceName(a) : 'the first run', b ? sourceName(b) : 'the second run'];
    return x === y ? { a: `${x} (first)`, b: `${y} (second)` } : { a: x, b: y };
  }, [a, b]);
  const sentence = both ? describeDifference(difference, names) : undefined;
  const markerOf = (step: RunStep | undefined): TimelineMarker | undefined =>
    step ? { at: step.at, label: MARKER_LABEL } : undefined;

  const show = () => {
    if (!difference) return;
    const offsets = [
      difference.a && axis.startOf('a') !== undefined ? difference.a.at - (axis.startOf('a') ?? 0) : 0,
      difference.b && axis.startOf('b') !== undefined ? difference.b.at - (axis.startOf('b') ?? 0) : 0,
    ];
    axis.move(Math.max(...offsets));
    for (const [store, step, events] of [
      [storeA, difference.a, eventsA],
      [storeB, difference.b, eventsB],
    ] as const) {
      if (!store || !step) continue;
      // Panned or zoomed away from it: the timeline follows the moment again, which is the difference.
      const { viewEnd, windowMs } = store.getState();
      if (viewEnd !== undefined && (step.at > viewEnd || step.at < viewEnd - windowMs)) {
        store.setState({ viewEnd: undefined });
      }
      store.getState().selectMark(markKeyOf(step, events));
    }
  };

  return (
    <div className="space-y-4">
      <p className="max-w-4xl text-base">
        Two runs on one time axis, each from its own first event: the fenced and a broken lab after the same story, or
        the same seed twice. What counts as a difference is what happened to each holder, in order (grants with their
        tokens, writes and their outcomes, freezes, expiries, crashes), never event ids, clock times or how many times a
        holder renewed or repeated a write; tokens are compared by rank in their run (#1 is the run&apos;s first).
      </p>
      <div className="flex flex-wrap gap-4">
        <SourcePicker legend="First history" labs={labs} source={a} onChoose={setA} />
        <SourcePicker legend="Second history" labs={labs} source={b} onChoose={setB} />
      </div>
      <FirstDifferencePanel sentence={sentence} difference={difference} names={names} onShow={show} />
      {storeA || storeB ? (
        <div className="flex flex-wrap items-center gap-3">
          <MomentSlider bounds={axis.bounds} moment={axis.moment} live={axis.following} onMove={axis.move} />
          <button
            type="button"
            onClick={axis.follow}
            aria-pressed={axis.following}
            className="rounded-md border border-slate-300 px-3 py-1.5 font-semibold hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:border-slate-700 dark:hover:bg-slate-900"
          >
            Follow the end
          </button>
        </div>
      ) : null}
      {a && storeA ? (
        <CompareSide
          key={`a-${a.serial}`}
          source={a}
          store={storeA}
          title={`First: ${names.a}`}
          marker={markerOf(difference?.a)}
        />
      ) : null}
      {b && storeB ? (
        <CompareSide
          key={`b-${b.serial}`}
          source={b}
          store={storeB}
          title={`Second: ${names.b}`}
          marker={markerOf(difference?.b)}
        />
      ) : null}
    </div>
  );
}
