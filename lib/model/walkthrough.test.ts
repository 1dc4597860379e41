import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorded } from '../testing/histories';
import { factsFrom, walkthroughFor } from './walkthrough';
import type { WireEvent } from './wire';

test('the fenced walkthrough tells the seed story with the tokens from a real run', () => {
  const events = recorded('fenced');
  const facts = factsFrom(events);
  const steps = walkthroughFor('fenced');
  assert.ok(
    steps.every((step) => step.done(facts)),
    'every step is complete at the end of the run',
  );
  const a = facts.tokenA as number;
  const b = facts.tokenB as number;
  const text = (id: string) => steps.find((s) => s.id === id)?.narrate(facts) ?? '';
  assert.match(text('a-writes'), new RegExp(`^term ${a} token ${a} → write accepted`));
  assert.match(text('b-takes-over'), new RegExp(`^lease expires, term ${b} token ${b} → write accepted`));
  assert.match(
    text('a-wakes'),
    new RegExp(`^old holder resumes → write token ${a} → rejected \\(stale: row holds token ${b}\\)`),
  );
  assert.match(text('the-row'), /The row still holds B's value "B-1"/);
});

test('a step is not done before its event: halfway through, A has frozen but B has not written', () => {
  const events = recorded('fenced');
  const pause = events.find((e) => e.kind === 'pause_started') as WireEvent;
  const facts = factsFrom(events.filter((e) => e.id <= pause.id));
  const steps = walkthroughFor('fenced');
  const done = steps.map((s) => [s.id, s.done(facts)]);
  assert.deepEqual(done.slice(1, 5), [
    ['a-writes', true],
    ['a-freezes', true],
    ['a-expires', false],
    ['b-takes-over', false],
  ]);
});

test('without fencing the last steps point at the lost update', () => {
  const facts = factsFrom(recorded('no-fencing'));
  const steps = walkthroughFor('no-fencing');
  assert.match(
    steps.find((s) => s.id === 'a-wakes')?.narrate(facts) ?? '',
    /→ accepted\. A wrote "A-2" with its old token over the newer value: lost update/,
  );
  assert.match(steps.find((s) => s.id === 'the-row')?.narrate(facts) ?? '', /The row holds A's stale value "A-2"/);
});

test("token as text: B's step says the rightful holder was turned away", () => {
  const facts = factsFrom(recorded('token-as-text'));
  const text =
    walkthroughFor('token-as-text')
      .find((s) => s.id === 'b-takes-over')
      ?.narrate(facts) ?? '';
  assert.match(text, /term 10 token 10 → write rejected \(stale: row holds token 9\)/);
});
