import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorded } from '../../testing/histories';
import type { WireEvent } from '../core/wire';
import { WORKER_LAB_IDS } from '../lab/lab-kinds';
import { factsFrom, walkthroughFor } from './walkthrough';

/* The walkthroughs' voice: no placeholder for a fact not recorded, the token a write carried, one way of saying things. */

test('a step whose facts are not recorded yet says what it waits for, never a placeholder', () => {
  const events = recorded('fenced');
  const pause = events.find((e) => e.kind === 'pause_started') as WireEvent;
  const facts = factsFrom(events.filter((e) => e.id <= pause.id));
  for (const step of walkthroughFor('fenced')) {
    const text = step.narrate(facts);
    assert.doesNotMatch(text, /"…"|token …|undefined/, step.id);
    if (!step.done(facts)) assert.equal(text, `Waiting for ${step.waitingFor}.`, step.id);
  }
});

test('the per-process counter: A and B are named with the token their writes carried, not the lease’s', () => {
  const origin = Date.parse('2026-12-01T00:00:00Z');
  const ev = (id: number, actor: string, kind: WireEvent['kind'], extra: Partial<WireEvent> = {}): WireEvent => ({
    id,
    lab: 'per-process-counter',
    at: origin + id * 100,
    actor,
    kind,
    detail: {},
    ...extra,
  });
  const events = [
    ev(1, 'A', 'lease_acquired', { token: 10 }),
    ev(2, 'A', 'write_accepted', { token: 1, detail: { value: 'A-1' } }),
    ev(3, 'A', 'pause_started', { detail: { belief: 'I hold token 1 until …', trigger: 'critical-window' } }),
    ev(4, 'A', 'lease_expired', { token: 10, detail: { expiresAt: new Date(origin + 400).toISOString() } }),
    ev(5, 'B', 'lease_acquired', { token: 11 }),
    ev(6, 'B', 'write_accepted', { token: 1, detail: { value: 'B-1' } }),
  ];
  const facts = factsFrom(events, 'per-process-counter');
  const text = (id: string) =>
    walkthroughFor('per-process-counter')
      .find((s) => s.id === id)
      ?.narrate(facts) ?? '';
  assert.match(
    text('a-writes'),
    /granted with token 10; its own counter numbered the grant 1, and it wrote "A-1" with token 1/,
  );
  assert.match(text('a-expires'), /its writes carrying token 1 /);
  assert.match(
    text('b-takes-over'),
    /Its own counter, new in this process, numbered the grant 1\. B wrote "B-1" with token 1: accepted/,
  );
  assert.doesNotMatch(text('b-takes-over'), /row now holds/);
});

test('one voice: no shorthand, no definition stitched into a sentence, no guard said to be both there and absent', () => {
  for (const lab of WORKER_LAB_IDS) {
    for (const step of walkthroughFor(lab)) {
      const text = step.preview + step.narrate({});
      assert.doesNotMatch(text, /\bterm \d|→|: [A-Z][a-z]+ [a-z]+: |: lost update:/, `${lab} ${step.id}`);
    }
  }
  const setup = walkthroughFor('bypass')[0]?.narrate({}) ?? '';
  assert.doesNotMatch(setup, /no guard/);
  assert.match(setup, /a write that runs late by more than one write interval takes a catch-up path/);
});
