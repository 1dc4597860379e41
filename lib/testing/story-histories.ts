import fc from 'fast-check';
import { LABS } from '../labs/index';
import type { EventKind } from '../model/core/events';
import type { WireEvent } from '../model/core/wire';
import type { WorkerLabId } from '../model/lab/lab-kinds';

/*
 * Generated histories of every walkthrough lab's story, for the narration's property test
 * (lib/model/walkthrough/narration-properties.test.ts) and its benchmark: the events a real run
 * could record, drawn with what goes wrong in real runs. A small simulator of one lab (its token
 * source, its write's check, the row) makes each history consistent the way the database is; the
 * schedule around it varies: A stalled past its lease before the story's freeze or hold (it takes the
 * lease again, with a new token), a write answered after its lease ran out, renewals, B refused and
 * trying again with new grants, B starting before or after A's lease ran out, A waking before B
 * writes, a late write answered after the row moved on, lease_lost recorded or not, workers recorded
 * with or without the settings a start records today, and (the delayed packet) a client's retry of the
 * held write after B's takeover, free play after the story: A takes the lease again and another write
 * is held across its end. Pure.
 */

export const T0 = Date.UTC(2026, 11, 4, 12, 0, 0);

type Actor = 'A' | 'B';

/** The choices a history is drawn from: each a perturbation of the story a real run has shown. */
export type StoryChoices = {
  firstSeq: number;
  aWrites: number;
  stalls: readonly { writesAfter: number; pendingAcross: boolean }[];
  renewals: number;
  bStartsEarly: boolean;
  wakesBeforeB: boolean;
  bRetries: number;
  bLaterWrites: number;
  lostRecorded: boolean;
  recordsRetry: boolean;
  gapsMs: readonly number[];
  /** Free play after the delayed packet's story: B stops, A takes the lease again and another write is held. */
  holdsAgain: boolean;
  /** The delayed packet with a client timeout: A sends the held write again on a new connection, after B's takeover. */
  retries: boolean;
};

const choices: fc.Arbitrary<StoryChoices> = fc.record({
  firstSeq: fc.integer({ min: 0, max: 120 }),
  aWrites: fc.integer({ min: 1, max: 4 }),
  stalls: fc.array(fc.record({ writesAfter: fc.integer({ min: 0, max: 3 }), pendingAcross: fc.boolean() }), {
    maxLength: 2,
  }),
  renewals: fc.integer({ min: 0, max: 3 }),
  bStartsEarly: fc.boolean(),
  wakesBeforeB: fc.boolean(),
  bRetries: fc.integer({ min: 0, max: 4 }),
  bLaterWrites: fc.integer({ min: 0, max: 2 }),
  lostRecorded: fc.boolean(),
  recordsRetry: fc.boolean(),
  gapsMs: fc.array(fc.integer({ min: 1, max: 900 }), { minLength: 64, maxLength: 64 }),
  // Drawn last, so that the choices above, and every other lab's histories, are the ones drawn before it.
  holdsAgain: fc.boolean(),
  retries: fc.boolean(),
});

/** One lab's storage and lease service, as the database keeps them: tokens, the row, the events. */
class LabSim {
  readonly events: WireEvent[] = [];
  private id = 100;
  at = T0;
  private seq: number;
  private textEpoch = 8;
  private gap = 0;
  row = { value: 'initial', lastToken: 0 };
  private readonly counters: Record<Actor, number> = { A: 0, B: 0 };
  private readonly lastExpired: { token?: number } = {};
  readonly written: Record<Actor, number> = { A: 0, B: 0 };

  constructor(
    readonly lab: WorkerLabId,
    private readonly c: StoryChoices,
  ) {
    this.seq = c.firstSeq;
  }

  private get traits() {
    return LABS[this.lab].traits;
  }

  wait(ms?: number): void {
    this.at += ms ?? this.c.gapsMs[this.gap++ % this.c.gapsMs.length] ?? 100;
  }

  push(actor: string, kind: EventKind, extra: Partial<WireEvent> = {}): WireEvent {
    this.id += 1;
    this.wait(1 + ((this.id * 7) % 40));
    const event: WireEvent = { id: this.id, lab: this.lab, at: this.at, actor, kind, detail: {}, ...extra };
    this.events.push(event);
    return event;
  }

  start(actor: Actor, settings: Record<string, number>): void {
    const recorded = this.c.recordsRetry ? { ...settings, acquireRetryMs: 50 } : settings;
    this.push(actor, 'worker_started', { detail: { name: actor, workerId: `w-${actor}`, ...recorded } });
  }

  /** A grant: its lease token (the lab's source) and the token its writes present (a counter lab's own). */
  grant(actor: Actor, ttlMs: number): { lease: number; writes: number; expiresAt: number } {
    const source = this.traits.tokenSource;
    const lease =
      source === 'kept-on-takeover' && this.lastExpired.token !== undefined
        ? this.lastExpired.token
        : this.traits.textEpoch
          ? ++this.textEpoch
          : ++this.seq;
    this.lastExpired.token = undefined;
    const expiresAt = this.at + ttlMs;
    this.push(actor, 'lease_acquired', {
      token: lease,
      detail: { ttlMs, expiresAt: new Date(expiresAt).toISOString() },
    });
    const writes = source === 'worker-counter' ? ++this.counters[actor] : lease;
    return { lease, writes, expiresAt };
  }

  renew(actor: Actor, token: number, ttlMs: number): number {
    const expiresAt = this.at + ttlMs;
    this.push(actor, 'lease_renewed', { token, detail: { ttlMs, expiresAt: new Date(expiresAt).toISOString() } });
    return expiresAt;
  }

  expire(actor: Actor, token: number, expiresAt: number): void {
    if (this.at < expiresAt) this.at = expiresAt + 1;
    this.lastExpired.token = token;
    this.push(actor, 'lease_expired', {
      token,
      detail: { expiresAt: new Date(expiresAt).toISOString(), noticedBy: 'database clock' },
    });
  }

  /** Whether the lab's write lets a write with `token` through, the row as it is now. */
  private admits(token: number, path: string | undefined): boolean {
    switch (this.traits.fencing) {
      case 'fenced-write':
        return token >= this.row.lastToken;
      case 'text-compare':
        return !(String(token) < String(this.row.lastToken));
      case 'catch-up-bypass':
        return path === 'catch-up' || token >= this.row.lastToken;
      default:
        return true;
    }
  }

  send(actor: Actor, token: number, detail: Record<string, unknown> = {}): WireEvent {
    const value = `${actor}-${++this.written[actor]}`;
    return this.push(actor, 'write_sent', { token, detail: { value, ...detail } });
  }

  /** The database's answer to a write sent before (`sent`), by the lab's rule, and the row after it. */
  answer(sent: WireEvent, path?: string): WireEvent {
    const token = sent.token as number;
    const value = String(sent.detail.value);
    // A delayed-packet write's answer says which attempt it was (a client's retry sends the same value again).
    const attempt = sent.detail.attempt ? { attempt: sent.detail.attempt } : {};
    const detail = { value, ...attempt, ...(path ? { path } : {}) };
    if (this.admits(token, path)) {
      this.row = { value, lastToken: token };
      return this.push(sent.actor, 'write_accepted', { token, outcome: 'accepted', detail });
    }
    return this.push(sent.actor, 'write_rejected', {
      token,
      storedToken: this.row.lastToken,
      outcome: 'stale',
      detail,
    });
  }

  write(actor: Actor, token: number, detail: Record<string, unknown> = {}, path?: string): WireEvent {
    return this.answer(this.send(actor, token, detail), path);
  }
}

const PAUSE = { leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 700 };
const B_SETTINGS = { leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 30_000 };
const DRIFT = { leaseTtlMs: 5_000, renewEveryMs: 4_500, writeEveryMs: 1_000, clockSlowPercent: 75 };

/** A's writes under its lease, then the stalls: its lease runs out, it takes it again (a new grant), writes on. */
function aTakesAndWrites(sim: LabSim, c: StoryChoices, ttlMs: number, detail: () => Record<string, unknown>) {
  let grant = sim.grant('A', ttlMs);
  let expiresAt = grant.expiresAt;
  for (let i = 0; i < c.aWrites; i++) {
    sim.write('A', grant.writes, detail());
    if (i < c.renewals) expiresAt = sim.renew('A', grant.lease, ttlMs);
  }
  for (const stall of c.stalls) {
    // A stalled (SIGSTOP) past its lease; a write it had sent may be answered only after the lease ran out.
    const pending = stall.pendingAcross ? sim.send('A', grant.writes, detail()) : undefined;
    sim.wait(ttlMs);
    sim.expire('A', grant.lease, expiresAt);
    if (pending) sim.answer(pending);
    grant = sim.grant('A', ttlMs);
    expiresAt = grant.expiresAt;
    for (let i = 0; i < stall.writesAfter; i++) sim.write('A', grant.writes, detail());
  }
  return { grant, expiresAt };
}

/** B takes the lease and writes; refused, it records its lease lost, takes the lease again and writes again. */
function bTakesOver(sim: LabSim, c: StoryChoices) {
  let grant = sim.grant('B', B_SETTINGS.leaseTtlMs);
  let outcome = sim.write('B', grant.writes);
  for (let retry = 0; outcome.kind === 'write_rejected' && retry < c.bRetries; retry++) {
    sim.push('B', 'lease_lost', {
      token: grant.lease,
      detail: { reason: `my write with token ${grant.writes} was rejected: the row holds ${sim.row.lastToken}` },
    });
    sim.expire('B', grant.lease, grant.expiresAt);
    grant = sim.grant('B', B_SETTINGS.leaseTtlMs);
    outcome = sim.write('B', grant.writes);
  }
  if (outcome.kind === 'write_accepted') sim.renew('B', grant.lease, B_SETTINGS.leaseTtlMs);
  return grant;
}

function lateAnswered(sim: LabSim, c: StoryChoices, late: WireEvent, token: number): void {
  if (late.kind === 'write_rejected' && c.lostRecorded)
    sim.push('A', 'lease_lost', {
      token,
      detail: { reason: `my write with token ${token} was rejected: the row holds ${sim.row.lastToken}` },
    });
}

function pauseStory(sim: LabSim, c: StoryChoices): void {
  sim.start('A', PAUSE);
  const { grant, expiresAt } = aTakesAndWrites(sim, c, PAUSE.leaseTtlMs, () => ({}));
  const belief = `I hold token ${grant.writes} until ${new Date(expiresAt + 3).toISOString()} (by my clock)`;
  sim.push('A', 'pause_started', { token: grant.writes, detail: { trigger: 'critical-window', belief } });
  if (c.bStartsEarly) sim.start('B', B_SETTINGS);
  sim.wait(PAUSE.leaseTtlMs);
  sim.expire('A', grant.lease, expiresAt);
  if (!c.bStartsEarly) sim.start('B', B_SETTINGS);
  const wake = () => {
    sim.push('A', 'pause_ended', { detail: { belief, frozenMs: 3_000 } });
    const path = LABS[sim.lab].traits.fencing === 'catch-up-bypass' ? 'catch-up' : undefined;
    const late = sim.write('A', grant.writes, {}, path);
    lateAnswered(sim, c, late, grant.writes);
  };
  if (c.wakesBeforeB) wake();
  const b = bTakesOver(sim, c);
  if (!c.wakesBeforeB) wake();
  for (let i = 0; i < c.bLaterWrites; i++) sim.write('B', b.writes);
}

function driftStory(sim: LabSim, c: StoryChoices): void {
  sim.start('A', DRIFT);
  const clock = (believedUntil: number) => () => ({
    myClock: new Date(sim.at - 3_000).toISOString(),
    believedUntil: new Date(believedUntil).toISOString(),
    clockSlowPercent: DRIFT.clockSlowPercent,
  });
  let until = sim.at + DRIFT.leaseTtlMs;
  const { grant, expiresAt } = aTakesAndWrites(sim, c, DRIFT.leaseTtlMs, () => clock(until)());
  until = expiresAt;
  if (c.bStartsEarly) sim.start('B', B_SETTINGS);
  sim.wait(DRIFT.leaseTtlMs);
  sim.expire('A', grant.lease, expiresAt);
  if (!c.bStartsEarly) sim.start('B', B_SETTINGS);
  const late = () => lateAnswered(sim, c, sim.write('A', grant.writes, clock(until)()), grant.writes);
  if (c.wakesBeforeB) late();
  const b = bTakesOver(sim, c);
  if (!c.wakesBeforeB) late();
  sim.write('A', grant.writes, clock(until)());
  sim.push('A', 'lease_lost', { token: grant.lease, detail: { heldBy: 'B', reason: 'my renewal was refused' } });
  for (let i = 0; i < c.bLaterWrites; i++) sim.write('B', b.writes);
}

function heldPacketStory(sim: LabSim, c: StoryChoices): void {
  sim.start('A', { leaseTtlMs: 2_000, renewEveryMs: 1_000, writeEveryMs: 500 });
  const { grant, expiresAt } = aTakesAndWrites(sim, c, 2_000, () => ({}));
  const held = sim.send('A', grant.writes);
  sim.push('A', 'packet_held', { detail: { bytes: 214 } });
  sim.wait(2_000);
  sim.expire('A', grant.lease, expiresAt);
  sim.start('B', { leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 30_000 });
  const release = () => {
    sim.push('A', 'packet_released', { detail: { bytes: 214, heldMs: sim.at - held.at } });
    lateAnswered(sim, c, sim.answer(held), grant.writes);
  };
  // Released before B's grant: held across A's expiry, but not across a takeover (B's step says it had arrived).
  if (c.wakesBeforeB) release();
  const b = bTakesOver(sim, c);
  if (!c.wakesBeforeB) {
    // A client timeout: the same write, same value and token, sent again on a new connection and
    // answered at once; the held bytes still arrive after it.
    if (c.retries) {
      const detail = { value: held.detail.value, attempt: 'retry', timedOutAfterMs: 4_000 };
      sim.answer(sim.push('A', 'write_sent', { token: held.token, detail }));
    }
    release();
  }
  for (let i = 0; i < c.bLaterWrites; i++) sim.write('B', b.writes);
  if (c.holdsAgain) holdAgain(sim, c, b.lease);
}

/**
 * Free play after the story: B is stopped and its lease runs out; A takes the lease again (a newer
 * token), writes, and the trainer holds A's next write across that lease's end too, answered later.
 * The story told is still the first hold's: a later hold must not take back a step already reached.
 */
function holdAgain(sim: LabSim, c: StoryChoices, bLease: number): void {
  sim.wait(3_000);
  sim.expire('B', bLease, sim.at);
  const grant = sim.grant('A', 2_000);
  sim.write('A', grant.writes);
  const held = sim.send('A', grant.writes);
  sim.push('A', 'packet_held', { detail: { bytes: 214 } });
  sim.wait(2_000);
  sim.expire('A', grant.lease, grant.expiresAt);
  if (c.wakesBeforeB) {
    sim.push('A', 'packet_released', { detail: { bytes: 214, heldMs: sim.at - held.at } });
    lateAnswered(sim, c, sim.answer(held), grant.writes);
  }
}

/** A history of `lab`'s story, drawn with the perturbations above: ids in commit order, times that never go back. */
export function storyHistory(lab: WorkerLabId): fc.Arbitrary<WireEvent[]> {
  return choices.map((c) => {
    const sim = new LabSim(lab, c);
    const story = LABS[lab].traits.story;
    if (story === 'slow-clock') driftStory(sim, c);
    else if (story === 'held-packet') heldPacketStory(sim, c);
    else pauseStory(sim, c);
    return sim.events;
  });
}
