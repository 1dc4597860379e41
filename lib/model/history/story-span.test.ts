import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade, recorded } from '../../testing/histories';
import type { WireEvent } from '../core/wire';
import { storyBounds } from './replay';
import { storySpan } from './story-span';

/** The run going on after its story: B writing every second for `minutes`. */
function goingOn(events: readonly WireEvent[], minutes: number): WireEvent[] {
  const last = events.at(-1);
  assert.ok(last);
  const { ev } = handMade(last.at);
  const token = events.find((e) => e.actor === 'B' && e.kind === 'lease_acquired')?.token;
  const more = Array.from({ length: minutes * 60 }, (_, i) =>
    ev(last.id + 1 + i, i + 1, 'B', 'write_accepted', { token, outcome: 'accepted' }),
  );
  return [...events, ...more];
}

describe("a run's story span", () => {
  test('ends where the walkthrough’s last step was reached, however long the lab went on after it', () => {
    const fenced = recorded('fenced');
    const story = storySpan('fenced', fenced);
    assert.ok(story);
    const late = goingOn(fenced, 12);
    assert.deepEqual(storySpan('fenced', late), story);
    const whole = storyBounds(late);
    assert.ok(whole);
    assert.ok(whole.to - whole.from > 12 * 60_000);
    assert.ok(story.to - story.from < 60_000, `the story took ${story.to - story.from} ms`);
    // It starts at the first grant and ends at A's late write or after it.
    assert.equal(story.from, fenced.find((e) => e.kind === 'lease_acquired')?.at);
    assert.ok(story.to >= (fenced.find((e) => e.kind === 'write_rejected')?.at ?? Number.POSITIVE_INFINITY));
  });

  test('a story not told to its end, or none, spans the whole run', () => {
    const fenced = recorded('fenced');
    const cut = fenced.slice(0, 8);
    assert.deepEqual(storySpan('fenced', cut), storyBounds(cut));
    assert.deepEqual(storySpan('your-guard', fenced), storyBounds(fenced));
    assert.equal(storySpan('fenced', []), undefined);
  });
});
