import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorded } from '../../testing/histories';
import { buildTimeline } from './timeline';
import { describeTimeline } from './timeline-layout';

test('the token-as-text lab: the newer token turned away is not called stale, and its check is the text one', () => {
  const events = recorded('token-as-text');
  const timeline = buildTimeline(events, (events.at(-1)?.at ?? 0) + 100);
  const b = describeTimeline(timeline, new Set()).find((m) => m.lane === 'B' && m.kind === 'write-rejected');
  assert.ok(b);
  assert.match(b.title, /^B's write "B-1" with token 10: refused, though the row held only the older token 9$/);
  assert.ok(
    b.lines.includes(
      "UPDATE … WHERE last_token::text <= '10': 0 rows, the row holds token 9 ('9' sorts after '10' as text)",
    ),
    b.lines.join('\n'),
  );
});
