import fc from 'fast-check';
import type { FinalRow } from '../model/checker/checker';
import type { EventKind } from '../model/core/events';
import type { WireEvent } from '../model/core/wire';

/*
 * Small random histories for lib/model/checker/checker-properties.test.ts: half drawn event by event (anything
 * may follow anything), half shaped like a lease service's (tokens that grow with grants, sometimes
 * granted again; writers using their latest token or an older one), dense in what the rules are about.
 * Tokens, actors, rows and values come from small sets so that collisions are common.
 */

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

const eventSpec = fc.record({
  kind: fc.constantFrom<EventKind>(
    'lease_acquired',
    'lease_acquired',
    'lease_acquired',
    'lease_renewed',
    'write_sent',
    'write_accepted',
    'write_accepted',
    'write_accepted',
    'write_rejected',
    'pause_started',
  ),
  lab: fc.constantFrom('l1', 'l1', 'l1', 'l1', 'l1', 'l2'),
  actor: fc.constantFrom('A', 'B', 'C'),
  token: fc.option(fc.integer({ min: 1, max: 4 }), { freq: 20 }),
  storedToken: fc.integer({ min: 0, max: 5 }),
  rowId: fc.option(fc.constantFrom(1, 1, 1, 2), { freq: 6 }),
  value: fc.constantFrom('v1', 'v2', 'v3'),
  ttlMs: fc.integer({ min: 0, max: 3_000 }),
  gapMs: fc.integer({ min: 0, max: 1_500 }),
});

type Spec = typeof eventSpec extends fc.Arbitrary<infer S> ? S : never;

/** Ids 1..n in order (commit order), database times that never go back. */
function historyOf(specs: Spec[]): WireEvent[] {
  let at = T0;
  return specs.map((s, i) => {
    at += s.gapMs;
    const writes = s.kind === 'write_accepted' || s.kind === 'write_rejected' || s.kind === 'write_sent';
    const leases = s.kind === 'lease_acquired' || s.kind === 'lease_renewed';
    return {
      id: i + 1,
      lab: s.lab,
      at,
      actor: s.actor,
      kind: s.kind,
      ...(s.token === null || s.kind === 'pause_started' ? {} : { token: s.token }),
      ...(writes && s.rowId !== null ? { rowId: s.rowId } : {}),
      ...(s.kind === 'write_rejected' ? { storedToken: s.storedToken, outcome: 'stale' } : {}),
      ...(s.kind === 'write_accepted' ? { outcome: 'accepted' } : {}),
      detail: {
        ...(writes ? { value: s.value } : {}),
        ...(leases ? { expiresAt: new Date(at + s.ttlMs).toISOString() } : {}),
      },
    };
  });
}

/** Events drawn independently: anything may follow anything. */
const anyHistory = fc.array(eventSpec, { maxLength: 16 }).map(historyOf);

/**
 * Histories shaped like a lease service's: each grant takes the next token (or, now and then, the
 * previous one again, as a takeover that keeps the token does), and a writer writes with one of its
 * own tokens, its latest or an older one (a paused holder). Dense in the patterns the rules are about.
 */
const step = fc.record({
  op: fc.constantFrom('grant', 'grant', 'write', 'write', 'write', 'write', 'renew', 'reject'),
  actor: fc.constantFrom('A', 'B', 'A', 'B', 'C'),
  sameToken: fc.integer({ min: 0, max: 5 }),
  older: fc.constantFrom(0, 0, 1, 2),
  rowId: fc.constantFrom(1, 1, 1, 2),
  value: fc.constantFrom('v1', 'v2', 'v3'),
  ttlMs: fc.integer({ min: 0, max: 3_000 }),
  gapMs: fc.integer({ min: 0, max: 1_500 }),
});
const leaseShaped = fc.array(step, { minLength: 4, maxLength: 24 }).map((steps) => {
  let token = 0;
  const own = new Map<string, number[]>();
  const specs: Spec[] = [];
  for (const s of steps) {
    const tokens = own.get(s.actor) ?? [];
    const base = { lab: 'l1' as const, actor: s.actor, rowId: s.rowId, value: s.value, ttlMs: s.ttlMs, gapMs: s.gapMs };
    if (s.op === 'grant') {
      if (s.sameToken !== 0 || token === 0) token += 1;
      own.set(s.actor, [...tokens, token]);
      specs.push({ ...base, kind: 'lease_acquired', token, storedToken: 0 });
      continue;
    }
    const mine = tokens[Math.max(0, tokens.length - 1 - s.older)];
    if (mine === undefined) continue;
    const kind = s.op === 'renew' ? 'lease_renewed' : s.op === 'write' ? 'write_accepted' : 'write_rejected';
    specs.push({ ...base, kind, token: mine, storedToken: token });
  }
  return historyOf(specs);
});

export const historyArb = fc.oneof(anyHistory, leaseShaped);

/** The row as it ended: often the last accepted write, sometimes not. */
export const withFinalRow = historyArb.chain((history) => {
  const last = history.filter((e) => e.kind === 'write_accepted' && e.token !== undefined).at(-1);
  const truthful: FinalRow | undefined = last
    ? { value: String(last.detail.value), lastToken: last.token as number }
    : undefined;
  const made = fc.record({ value: fc.constantFrom('v1', 'v2', 'v3'), lastToken: fc.integer({ min: 0, max: 4 }) });
  return fc.record({
    history: fc.constant(history),
    finalRow: fc.oneof(fc.constant(undefined), fc.constant(truthful), made),
  });
});

export const show = (history: WireEvent[]) =>
  history
    .map((e) =>
      JSON.stringify({
        id: e.id,
        at: e.at - T0,
        lab: e.lab,
        actor: e.actor,
        kind: e.kind,
        token: e.token,
        rowId: e.rowId,
        storedToken: e.storedToken,
        ...e.detail,
      }),
    )
    .join('\n');
