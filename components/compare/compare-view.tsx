'use client';

import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import type { WireEvent } from '@/lib/model/core/wire';
import { describeDifference, firstDifference } from '@/lib/model/history/first-difference';
import type { RunStep } from '@/lib/model/history/history-diff';
import { storyPlaceOf } from '@/lib/model/history/history-diff-story';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import { buildTimeline } from '@/lib/model/timeline/timeline';
import { markKeyOfEvent } from '@/lib/model/timeline/timeline-layout-words';
import { MomentSlider } from '../lab/replay/moment-slider';
import type { TimelineMarker } from '../lab/timeline/timeline';
import { CompareSide } from './compare-side';
import { type CompareSource, sourceKind, sourceName, storeOf } from './compare-source';
import { FirstDifferencePanel } from './first-difference';
import { SourcePicker } from './source-picker';
import { useEventsOf, useSharedAxis } from './use-shared-axis';

const MARKER_LABEL = 'first difference';

/** The timeline's mark for the event that began a step (the timeline's own keys), if that event drew one. */
function markKeyOf(step: RunStep, events: readonly WireEvent[]): string | undefined {
  const event = events.find((e) => e.id === step.eventId);
  if (!event) return undefined;
  // Built at a click, not at every render: the one timeline model the painters draw from.
  return markKeyOfEvent(buildTimeline(events, events.at(-1)?.at ?? event.at), event);
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
  /** What Show the first difference did, in words (a step without a mark of its own is said so). */
  const [shown, setShown] = useState<string | undefined>(undefined);
  const storeA = useMemo(() => (a ? storeOf(a) : undefined), [a]);
  const storeB = useMemo(() => (b ? storeOf(b) : undefined), [b]);
  const eventsA = useEventsOf(storeA);
  const eventsB = useEventsOf(storeB);
  const axis = useSharedAxis(
    { store: storeA, events: eventsA, kind: a ? sourceKind(a) : undefined },
    { store: storeB, events: eventsB, kind: b ? sourceKind(b) : undefined },
  );

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
  const places = useMemo(
    () =>
      a && b && difference
        ? { a: storyPlaceOf(sourceKind(a), shownA, difference.a), b: storyPlaceOf(sourceKind(b), shownB, difference.b) }
        : {},
    [a, b, difference, shownA, shownB],
  );
  const sentence = both ? describeDifference(difference, names, places) : undefined;
  // What the button said belongs to the difference it showed: a new one (a live run moved on) clears it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: cleared when the sentence changes, by design.
  useEffect(() => setShown(undefined), [sentence]);
  const markerOf = (step: RunStep | undefined): TimelineMarker | undefined =>
    step ? { at: step.at, label: MARKER_LABEL } : undefined;

  const show = () => {
    if (!difference) return;
    const unmarked: string[] = [];
    const offsets = [
      difference.a && axis.startOf('a') !== undefined ? difference.a.at - (axis.startOf('a') ?? 0) : 0,
      difference.b && axis.startOf('b') !== undefined ? difference.b.at - (axis.startOf('b') ?? 0) : 0,
    ];
    axis.move(Math.max(...offsets));
    for (const [store, step, events, name] of [
      [storeA, difference.a, eventsA, names.a],
      [storeB, difference.b, eventsB, names.b],
    ] as const) {
      if (!store || !step) continue;
      // Panned or zoomed away from it: the timeline follows the moment again, which is the difference.
      const { viewEnd, windowMs } = store.getState();
      if (viewEnd !== undefined && (step.at > viewEnd || step.at < viewEnd - windowMs)) {
        store.setState({ viewEnd: undefined });
      }
      const key = markKeyOf(step, events);
      store.getState().selectMark(key);
      if (!key) unmarked.push(`in ${name}, ${step.words} draws no mark of its own`);
    }
    setShown(
      unmarked.length
        ? `${unmarked.join('; ')}: the line drawn across that timeline shows its moment.`
        : 'Both marks are selected: their details are below each timeline.',
    );
  };

  return (
    <div className="space-y-4">
      <p className="max-w-4xl text-base">
        Two runs on one time axis, each from its story&apos;s start (its first grant): the fenced and a broken lab after
        the same story, or the same seed twice. What counts as a difference is what happened to each holder, in order
        (grants with their tokens, writes and their outcomes, freezes, expiries, crashes), never event ids, clock times
        or how many times a holder renewed or repeated a write; tokens are compared by rank in their run (#1 is the
        run&apos;s first).
      </p>
      <div className="flex flex-wrap gap-4">
        <SourcePicker legend="First history" labs={labs} source={a} onChoose={setA} />
        <SourcePicker legend="Second history" labs={labs} source={b} onChoose={setB} />
      </div>
      <FirstDifferencePanel
        sentence={sentence}
        difference={difference}
        names={names}
        onShow={show}
        shown={difference ? shown : undefined}
      />
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
