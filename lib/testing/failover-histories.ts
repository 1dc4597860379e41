import fc from 'fast-check';
import type { WireEvent } from '../model/core/wire';
import { FAILOVER_RESOURCE, failoverEvent, OTHER_HOLDERS } from '../model/failover/failover-events';
import type { FailoverServerRole, FailoverStep } from '../model/failover/failover-steps';

/*
 * Generated histories of the failover lab, for its narration's property test
 * (lib/model/failover/failover-narration.test.ts) and the narration benchmark: the steps a real pair
 * could record, with the trainer's free play between the story's steps (a grant or a write by any
 * client, replication cut or healed again, another service's grants past the cut, the pair stopped).
 * A small simulator of the pair keeps each history consistent the way PostgreSQL is: the token
 * sequence logged 32 values ahead, what reaches the standby while replication runs, a synchronous
 * commit waiting for the standby, the guard's `last_token <= token`, and the promoted standby going on
 * from what it received. Pure.
 */

const T0 = Date.UTC(2026, 11, 4, 12, 0, 0);
/** PostgreSQL writes a sequence's WAL record this many values ahead (SEQ_LOG_VALS). */
const SEQ_LOG_VALS = 32;
const LEASE_MS = 800;

type Holder = 'A' | 'B' | 'C' | typeof OTHER_HOLDERS;
type Row = { value: string; lastToken: number };
type Lease = { holder: string; token: number } | undefined;
type Store = { row: Row; lease: Lease; logged: number };

type Action =
  | { kind: 'start' }
  | { kind: 'grant'; holder: Holder }
  | { kind: 'write'; holder: Exclude<Holder, typeof OTHER_HOLDERS>; stale?: boolean }
  | { kind: 'cut' }
  | { kind: 'heal' }
  | { kind: 'kill' }
  | { kind: 'promote' }
  | { kind: 'stop' };

/** The pair as PostgreSQL keeps it: the primary's state, what the standby has received, the wire between. */
class PairSim {
  readonly steps: FailoverStep[] = [];
  private seq = 0;
  private primary: Store = { row: { value: 'initial', lastToken: 0 }, lease: undefined, logged: 0 };
  private standby: Store = { row: { value: 'initial', lastToken: 0 }, lease: undefined, logged: 0 };
  private replicating = true;
  private server: FailoverServerRole | 'dead' | 'none' = 'none';
  private waiting: { holder: Holder; token: number } | undefined;
  private readonly tokens = new Map<string, number[]>();
  private readonly values = new Map<string, number>();

  constructor(
    readonly mode: 'async' | 'sync',
    private readonly withSequence: boolean,
  ) {}

  private store(): Store {
    return this.server === 'primary' ? this.primary : this.standby;
  }

  private replicate() {
    if (this.server === 'primary' && this.replicating) this.standby = structuredClone(this.primary);
  }

  private nextToken(): number {
    const store = this.store();
    this.seq += 1;
    if (this.seq > store.logged) store.logged = this.seq + SEQ_LOG_VALS - 1;
    return this.seq;
  }

  private grantStep(holder: string, token: number): FailoverStep {
    return {
      kind: 'grant',
      holder,
      resource: holder === OTHER_HOLDERS ? `${FAILOVER_RESOURCE}-other-${token}` : FAILOVER_RESOURCE,
      token: String(token),
      server: this.server as FailoverServerRole,
    };
  }

  apply(action: Action): void {
    if (action.kind === 'stop') {
      if (this.server !== 'none') this.steps.push({ kind: 'pair_stopped' });
      this.server = 'none';
      return;
    }
    if (action.kind === 'start') {
      if (this.server !== 'none' || this.steps.length > 0) return;
      this.server = 'primary';
      this.steps.push({ kind: 'pair_started', mode: this.mode });
      return;
    }
    const alive = this.server === 'primary' || this.server === 'promoted standby';
    const waitingOnCut = this.waiting !== undefined;
    switch (action.kind) {
      case 'grant': {
        if (!alive || waitingOnCut) return;
        const token = this.nextToken();
        if (action.holder !== OTHER_HOLDERS) this.store().lease = { holder: action.holder, token };
        if (this.mode === 'sync' && this.server === 'primary' && !this.replicating) {
          // The grant commits on the primary; its COMMIT waits for the standby.
          this.waiting = { holder: action.holder, token };
          this.steps.push({ kind: 'grant_waiting', holder: action.holder, waitedMs: 1_500 + token });
          return;
        }
        this.replicate();
        this.tokens.set(action.holder, [...(this.tokens.get(action.holder) ?? []), token]);
        this.steps.push(this.grantStep(action.holder, token));
        return;
      }
      case 'write': {
        const mine = this.tokens.get(action.holder);
        if (!alive || waitingOnCut || !mine) return;
        if (this.mode === 'sync' && this.server === 'primary' && !this.replicating) return;
        const token = (action.stale ? mine[0] : mine.at(-1)) as number;
        const n = (this.values.get(action.holder) ?? 0) + 1;
        this.values.set(action.holder, n);
        const value = `${action.holder}-${n}`;
        const row = this.store().row;
        const accepted = row.lastToken <= token;
        const step: FailoverStep = {
          kind: 'write',
          holder: action.holder,
          token: String(token),
          value,
          server: this.server as FailoverServerRole,
          accepted,
          ...(accepted ? {} : { rowToken: String(row.lastToken) }),
        };
        if (accepted) this.store().row = { value, lastToken: token };
        this.replicate();
        this.steps.push(step);
        return;
      }
      case 'cut': {
        if (this.server !== 'primary' || !this.replicating) return;
        this.replicating = false;
        this.steps.push(
          this.withSequence && this.seq > 0
            ? {
                kind: 'replication_cut',
                sequence: { primaryLastValue: String(this.seq), primaryLogCount: this.primary.logged - this.seq },
              }
            : { kind: 'replication_cut' },
        );
        return;
      }
      case 'heal': {
        if (this.server !== 'primary' || this.replicating) return;
        this.replicating = true;
        this.replicate();
        this.steps.push({ kind: 'replication_healed' });
        const waiting = this.waiting;
        if (waiting) {
          this.waiting = undefined;
          this.tokens.set(waiting.holder, [...(this.tokens.get(waiting.holder) ?? []), waiting.token]);
          this.steps.push(this.grantStep(waiting.holder, waiting.token));
        }
        return;
      }
      case 'kill': {
        if (this.server !== 'primary' || waitingOnCut) return;
        this.server = 'dead';
        this.steps.push(
          this.withSequence && this.standby.logged > 0
            ? {
                kind: 'primary_killed',
                sequence: { primaryLastValue: String(this.seq), standbyCeiling: String(this.standby.logged) },
              }
            : { kind: 'primary_killed' },
        );
        return;
      }
      case 'promote': {
        if (this.server !== 'dead') return;
        this.server = 'promoted standby';
        // The standby's sequence goes on from the last record it received, 32 values ahead of its use.
        this.seq = this.standby.logged;
        const { row, lease } = this.standby;
        this.steps.push({
          kind: 'standby_promoted',
          row: { value: row.value, lastToken: String(row.lastToken) },
          lease: lease && { resource: FAILOVER_RESOURCE, holder: lease.holder, token: String(lease.token) },
        });
        return;
      }
    }
  }
}

const holderArb = fc.constantFrom<Holder>('A', 'B', 'C', OTHER_HOLDERS);
/** What the trainer may do between the story's steps. */
const freePlay: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('grant' as const), holder: holderArb }),
  fc.record({
    kind: fc.constant('write' as const),
    holder: fc.constantFrom('A' as const, 'B' as const, 'C' as const),
    stale: fc.boolean(),
  }),
  fc.constant({ kind: 'cut' } as const),
  fc.constant({ kind: 'heal' } as const),
);

/** The story's own steps, as the walkthrough runs them. */
function storyOf(mode: 'async' | 'sync'): Action[] {
  return [
    { kind: 'start' },
    { kind: 'grant', holder: 'A' },
    { kind: 'write', holder: 'A' },
    { kind: 'cut' },
    { kind: 'grant', holder: 'B' },
    ...(mode === 'sync' ? [{ kind: 'heal' } as const] : []),
    { kind: 'write', holder: 'B' },
    { kind: 'kill' },
    { kind: 'promote' },
    { kind: 'write', holder: 'A', stale: true },
    { kind: 'grant', holder: 'C' },
  ];
}

/** The events of one generated failover history, ids from 1 and a few hundred ms apart. */
export function failoverHistory(): fc.Arbitrary<WireEvent[]> {
  return fc
    .record({
      mode: fc.constantFrom('async' as const, 'sync' as const),
      withSequence: fc.boolean(),
      // Free play before each story step (mostly none), and after the last.
      between: fc.array(fc.array(freePlay, { maxLength: 3 }), { minLength: 13, maxLength: 13 }),
      noisy: fc.array(fc.boolean(), { minLength: 13, maxLength: 13 }),
      stopped: fc.boolean(),
      gapsMs: fc.array(fc.integer({ min: 1, max: 900 }), { minLength: 80, maxLength: 80 }),
    })
    .map(({ mode, withSequence, between, noisy, stopped, gapsMs }) => {
      const pair = new PairSim(mode, withSequence);
      storyOf(mode).forEach((action, i) => {
        if (i > 0 && noisy[i]) for (const extra of between[i] ?? []) pair.apply(extra);
        pair.apply(action);
      });
      for (const extra of noisy[12] ? (between[12] ?? []) : []) pair.apply(extra);
      if (stopped) pair.apply({ kind: 'stop' });
      let at = T0;
      return pair.steps.map((step, i) => {
        at += gapsMs[i % gapsMs.length] ?? 100;
        const event = { ...failoverEvent(step), id: i + 1, at } as WireEvent;
        if (step.kind === 'grant') event.detail = { ...event.detail, expiresAt: new Date(at + LEASE_MS).toISOString() };
        return event;
      });
    });
}
