import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorded } from '../../testing/histories';
import { msOfDay } from '../core/clock-time';
import { rowAfter } from '../walkthrough/narration-oracle';
import { factsFrom, walkthroughFor } from '../walkthrough/walkthrough';
import { buildTimeline } from './timeline';
import { layoutTimeline, PRESENTER_METRICS, SCREEN_METRICS, type Shape } from './timeline-layout';

/*
 * One way to show a moment (core/clock-time.ts): every time the narration names is read off the
 * timeline's axis as it is written, on the projector's and the phone's track, in every window that
 * shows it: the axis's labels are the same clock, and the moment falls between two of its ticks.
 */

const TIME = /\b(\d\d:\d\d:\d\d\.\d\d\d)\b/g;

for (const lab of ['fenced', 'drifting-clock', 'delayed-packet-unfenced'] as const) {
  test(`${lab}: every time the narration names is on the axis's scale, in the axis's own words`, () => {
    const events = recorded(lab);
    const facts = factsFrom(events, lab);
    const row = rowAfter(events);
    const timeline = buildTimeline(events, (events.at(-1)?.at ?? 0) + 500);
    const dayStart = Math.floor(timeline.from / 86_400_000) * 86_400_000;
    const named = walkthroughFor(lab).flatMap((step) =>
      [...step.narrate(facts, row).matchAll(TIME)].map(([, clock]) => clock as string),
    );
    assert.ok(named.length > 0, 'the narration names times');
    for (const clock of named) {
      // A's own clock reading (the drifting clock's) is a time too, and lies on the same scale.
      const at = dayStart + (msOfDay(clock) ?? Number.NaN);
      for (const metrics of [SCREEN_METRICS, PRESENTER_METRICS]) {
        // A laptop's and a projector's track (a phone's narrow one may hold a single tick: the scale
        // needs two, and the layout test holds its labels apart).
        for (const width of [800, 1280]) {
          // A 14 s window around it, as the lab page shows one.
          const [from, to] = [at - 7_000, at + 7_000];
          const ticks = layoutTimeline(timeline, {
            from,
            to,
            width,
            metrics,
            origin: timeline.from,
            until: to,
            flagged: new Set(),
          })
            .decor.filter((s): s is Extract<Shape, { type: 'text' }> => s.type === 'text' && s.role === 'axis')
            .map((s) => ({ x: s.x, at: dayStart + (msOfDay(s.text) ?? Number.NaN) }))
            .toSorted((a, b) => a.x - b.x);
          assert.ok(ticks.length >= 2, `${clock}: ticks at ${width} px, ${metrics.labelPx} px labels`);
          for (const tick of ticks) assert.ok(Number.isFinite(tick.at), `${clock}: an axis label not in clock time`);
          const before = ticks.findLast((tick) => tick.at <= at);
          const after = ticks.find((tick) => tick.at >= at);
          assert.ok(before && after, `${clock} lies between two ticks at ${width} px`);
          // The labels are the scale: x grows with the clock they read, at one rate.
          const [first, last] = [ticks[0], ticks.at(-1)];
          if (!first || !last) continue;
          const pxPerMs = (last.x - first.x) / (last.at - first.at);
          for (const tick of ticks)
            assert.ok(Math.abs(first.x + (tick.at - first.at) * pxPerMs - tick.x) < 0.5, `${tick.at}: off the scale`);
        }
      }
    }
  });
}
