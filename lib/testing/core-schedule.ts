import fc from 'fast-check';

/*
 * The steps of db/core-properties.test.ts's random schedules, as fast-check draws them: three
 * holders, short leases (100–250 ms, the least the schema allows is 100), and weights that make a
 * paused holder's old token meet another holder's newer write often.
 */

export const HOLDERS = ['A', 'B', 'C'] as const;
export type Holder = (typeof HOLDERS)[number];

// A and B most of the time, so that one holder's old token often meets the other's newer write.
const holder = fc.constantFrom<Holder>('A', 'B', 'A', 'B', 'C');
const ttlMs = fc.constantFrom(100, 150, 250);
const older = fc.constantFrom(0, 0, 1, 1, 2);
export const stepArb = fc.oneof(
  {
    arbitrary: fc.record({ op: fc.constant('acquire' as const), holder, ttlMs, delayMs: fc.constantFrom(0, 0, 40) }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ op: fc.constant('renew' as const), holder, ttlMs, delayMs: fc.constantFrom(0, 0, 40) }),
    weight: 1,
  },
  { arbitrary: fc.record({ op: fc.constant('release' as const), holder }), weight: 1 },
  {
    arbitrary: fc.record({
      op: fc.constant('write' as const),
      holder,
      older,
      frozenMs: fc.constantFrom(0, 0, 30),
      // The holder whose latest token is the oldest writes: a paused holder waking up.
      paused: fc.boolean(),
    }),
    weight: 6,
  },
  { arbitrary: fc.record({ op: fc.constant('bypass' as const), holder, older }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('sleep' as const), ms: fc.constantFrom(30, 120, 260) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('late-acquire' as const), holder, ttlMs }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('late-renew' as const), holder, ttlMs }), weight: 2 },
  {
    arbitrary: fc.record({ op: fc.constant('crash' as const), holder, during: fc.constantFrom('acquire', 'write') }),
    weight: 1,
  },
);
export type Step = typeof stepArb extends fc.Arbitrary<infer S> ? S : never;
