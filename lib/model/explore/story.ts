import type { WireEvent } from '../core/wire';
import {
  applyPairStep,
  type FailoverState,
  failoverKey,
  failoverSteps,
  grantEvent,
  grantOnPair,
  initialFailover,
  type PairStep,
  type Replication,
  writeEvent,
  writtenOnPair,
} from './failover-story';

/*
 * A lab's story as actors, for the explorer (search.ts): holders A, B (, C), each with one program,
 * "acquire the lease, then write up to W times with the token you believe you hold", and the lease
 * service, which grants a token when the lease is free (never held, or run out) by the lab's token rule.
 * A pause, a held packet, a slow clock are all one thing here: the others move first. "The lease runs
 * out" is a step of its own, and a holder whose lease ran out still writes, since it does not know.
 *
 * The row's outcome of a write is not decided here: the storage (the lab's real SQL) decides it, and
 * `applyStep` is told the outcome. Everything is plain data, so a state hashes by its JSON.
 */

export const HOLDER_NAMES = ['A', 'B', 'C'] as const;
export type HolderName = (typeof HOLDER_NAMES)[number];

/**
 * How tokens are made: the nth grant takes `tokens[n]` (a sequence: the block the storage reserved, or
 * the token-as-text lab's 9, 10, … that cross a digit); a holder writes with its grant's token, or, in
 * the per-process counter lab, with its own count of grants, from 1 (lib/worker/lease-client.ts).
 */
export type TokenRule = {
  tokens: readonly number[];
  writeWith: 'lease-token' | 'holder-counter';
  /**
   * The same-token lab's mistake (fl_broken_takeover_same_token): a grant after another holder's lease
   * ran out keeps that lease's token; only the first grant mints. (Each holder here acquires once, so
   * every later grant is such a takeover.)
   */
  keptOnTakeover?: boolean;
};

/**
 * one-at-a-time: the lease is granted to one holder while it is free (the lab as it runs);
 * granted-up-front: every holder starts holding a token of its own, in order (no acquire, no expiry),
 * so that the only steps are writes: the case with a closed form for its count of interleavings.
 */
export type LeaseMode = 'one-at-a-time' | 'granted-up-front';

export type ExploreBounds = {
  holders: number;
  writes: number;
  /** At most this many steps on a path (a path cut here counts as one interleaving). */
  depth?: number;
  leases?: LeaseMode;
  /**
   * Careful holders: each renews its lease before every write after its first (a renewal refused, it
   * knows it lost the lease and writes no more), and gives the lease back after its last write. The
   * lesson they teach: a renewal does not make the next write safe, since the holder may be delayed
   * between its renewal and its write. Only with leases granted one at a time.
   */
  renew?: boolean;
};

/**
 * `check`: in a lab whose write is split in two (read-check-write), a holder's read of the row's token
 * and its comparison in the app, before its `write` (which then writes without a check, or gives up).
 */
export type Step =
  | { kind: 'acquire'; holder: HolderName }
  | { kind: 'expire' }
  | { kind: 'renew'; holder: HolderName }
  | { kind: 'release'; holder: HolderName }
  | { kind: 'check'; holder: HolderName }
  | { kind: 'write'; holder: HolderName }
  /** The failover lab's pair (failover-story.ts): the standby catches up; the primary dies and the standby is promoted. */
  | PairStep;

export type HolderState = {
  name: HolderName;
  /** Its lease's token (undefined until its grant). */
  token?: number;
  /** The token its writes present: its lease's, or its own counter's. */
  writeToken?: number;
  writesDone: number;
  /** Every token it was granted, oldest first (the checker's view of its leases). */
  grants: number[];
  /** The token of its last accepted write (the checker's fence for this holder). */
  lastWrittenToken?: number;
  /** In a split write: the row's token as its check read it, until its write. */
  checked?: number;
  /** Its lease ran out (an expire step): its writes from now on are overdue (the bypass lab's catch-up path). */
  ranOut?: boolean;
  /** Careful holders: its lease was renewed since its last write, so its next write may go. */
  renewed?: boolean;
  /** Careful holders: its renewal was refused: it knows it lost the lease, and writes no more. */
  lost?: boolean;
};

export type ExploreState = {
  holders: HolderState[];
  /** The live lease's holder, if one is live. */
  leaseHolder?: HolderName;
  /** Grants the lease service made so far (each minted a token, but a takeover that kept one). */
  minted: number;
  /** The row as the storage left it. */
  row: { value: string; token: number };
  /** Steps taken to get here. */
  depth: number;
  /** The lab's write is split: each write is a check (a read of the row's token), then the write. */
  checkFirst: boolean;
  /** Every write carries this value (a constant a trainee's statement names), not "A1", "B2". */
  value?: string;
  /** The failover lab: the lock service on a primary and a standby (failover-story.ts). */
  failover?: FailoverState;
};

/**
 * What the storage answered a write. `refused`: the write raised (a trigger's refusal). `path`: the
 * write took the bypass lab's catch-up path (no token check), as its worker does once overdue.
 */
export type WriteOutcome = { outcome: 'accepted' | 'stale' | 'refused'; storedToken?: number; path?: 'catch-up' };

export type StoryStart = {
  rule: TokenRule;
  row: { value: string; token: number };
  /** The lab reads the row's token and compares it in the app before it writes (read-check-write). */
  checkFirst?: boolean;
  /** Every write carries this value: a constant the trainee's statement names (a backdoor opens on it). */
  value?: string;
  /**
   * The failover lab's story: the lease, the sequence and the row on a primary and a streaming standby,
   * with the replication's mode; its tokens are the pair's (failover-story.ts), not `rule.tokens`.
   */
  failover?: { replication: Replication };
};

export function initialState(bounds: ExploreBounds, start: StoryStart): ExploreState {
  const holders: HolderState[] = HOLDER_NAMES.slice(0, bounds.holders).map((name) => ({
    name,
    writesDone: 0,
    grants: [],
  }));
  let state: ExploreState = {
    holders,
    minted: 0,
    row: { ...start.row },
    depth: 0,
    checkFirst: start.checkFirst === true,
    ...(start.value === undefined ? {} : { value: start.value }),
    ...(start.failover ? { failover: initialFailover(start.failover.replication, start.row) } : {}),
  };
  if (bounds.leases === 'granted-up-front') {
    for (const holder of holders) state = grant(state, holder.name, start.rule).state;
    state = { ...state, leaseHolder: undefined };
  }
  return state;
}

/** The events the up-front grants recorded (none when leases are granted one at a time). */
export function preludeEvents(state: ExploreState): Omit<WireEvent, 'id' | 'at' | 'lab'>[] {
  return state.holders.flatMap((h) =>
    h.grants.map((token) => ({ actor: h.name, kind: 'lease_acquired' as const, token, detail: {} })),
  );
}

/** A stable key of everything the future of a path depends on, the checker's memory included. */
export function stateKey(state: ExploreState): string {
  const key: unknown[] = [
    state.holders.map((h) => [
      h.token ?? null,
      h.writeToken ?? null,
      h.writesDone,
      h.grants,
      h.lastWrittenToken ?? null,
      h.checked ?? null,
      // Not ranOut: a holder with writes left has run out exactly when it holds a token but not the lease.
      h.renewed === true,
      h.lost === true,
    ]),
    state.leaseHolder ?? null,
    state.minted,
    state.row.value,
    state.row.token,
    state.depth,
  ];
  if (state.failover) key.push(failoverKey(state.failover));
  return JSON.stringify(key);
}

const holderOf = (state: ExploreState, name: HolderName): HolderState => {
  const found = state.holders.find((h) => h.name === name);
  if (!found) throw new RangeError(`no holder ${name} in this story`);
  return found;
};

/**
 * The steps that may come next, in a fixed order (acquires, the expiry, each holder's next step). The
 * lease runs out only while another holder still waits for it: an expiry nobody acts on changes no
 * outcome (a write is judged by tokens, not clocks, and these writes carry no clock), and counting it
 * would only add copies of the same schedule. For the same reason a careful holder releases its lease
 * only while it still holds it (a release refused records nothing and changes nothing).
 */
export function enabledSteps(state: ExploreState, bounds: ExploreBounds): Step[] {
  if (bounds.depth !== undefined && state.depth >= bounds.depth) return [];
  const steps: Step[] = [];
  const waiting = state.holders.filter((h) => h.token === undefined);
  const oneAtATime = bounds.leases !== 'granted-up-front';
  const careful = oneAtATime && bounds.renew === true;
  if (oneAtATime) {
    if (state.leaseHolder === undefined) for (const h of waiting) steps.push({ kind: 'acquire', holder: h.name });
    else if (waiting.length > 0) steps.push({ kind: 'expire' });
  }
  for (const h of state.holders) {
    if (h.token === undefined || h.lost) continue;
    if (h.writesDone >= bounds.writes) {
      if (careful && state.leaseHolder === h.name) steps.push({ kind: 'release', holder: h.name });
      continue;
    }
    if (careful && h.writesDone > 0 && !h.renewed) steps.push({ kind: 'renew', holder: h.name });
    else steps.push({ kind: state.checkFirst && h.checked === undefined ? 'check' : 'write', holder: h.name });
  }
  if (state.failover) steps.push(...failoverSteps(state.failover));
  return steps;
}

function grant(state: ExploreState, name: HolderName, rule: TokenRule): { state: ExploreState; token: number } {
  const holder = holderOf(state, name);
  // The lease taken over is the last one granted: its token is the newest granted so far.
  const granted = state.holders.flatMap((h) => h.grants);
  const onPair = state.failover ? grantOnPair(state.failover, name) : undefined;
  const token = onPair
    ? onPair.token
    : rule.keptOnTakeover && granted.length > 0
      ? Math.max(...granted)
      : rule.tokens[state.minted];
  if (token === undefined) throw new RangeError(`the token rule has no token number ${state.minted + 1}`);
  const writeToken = rule.writeWith === 'holder-counter' ? holder.grants.length + 1 : token;
  const holders = state.holders.map((h) =>
    h.name === name ? { ...h, token, writeToken, grants: [...h.grants, token] } : h,
  );
  const failover = onPair ? { failover: onPair.failover } : {};
  return { state: { ...state, holders, minted: state.minted + 1, leaseHolder: name, ...failover }, token };
}

/** The value a holder's next write carries: its name and the write's number ("A1", "B2"), or the story's one value. */
export function nextValue(state: ExploreState, name: HolderName): string {
  return state.value ?? `${name}${holderOf(state, name).writesDone + 1}`;
}

/** The token a holder's next write presents: the one it believes it holds. */
export function tokenOf(state: ExploreState, name: HolderName): number {
  const token = holderOf(state, name).writeToken;
  if (token === undefined) throw new RangeError(`${name} holds no token yet`);
  return token;
}

export type StepEvent = Omit<WireEvent, 'id' | 'at' | 'lab'>;

/** The state after `step`, and the event it records (a write's outcome is the storage's, a check's read too). */
export function applyStep(
  state: ExploreState,
  step: Step,
  rule: TokenRule,
  written?: WriteOutcome,
  read?: number,
): { state: ExploreState; event: StepEvent } {
  const depth = state.depth + 1;
  if (step.kind === 'catch-up' || step.kind === 'promote') {
    if (!state.failover) throw new RangeError(`a ${step.kind} step needs the failover lab's pair`);
    const live = state.leaseHolder === undefined ? undefined : holderOf(state, state.leaseHolder);
    const done = applyPairStep(
      state.failover,
      step,
      state.row,
      live && { holder: live.name, token: live.token as number },
    );
    const { leaseHolder: _live, ...rest } = state;
    return {
      state: {
        ...rest,
        ...(done.leaseLive && live ? { leaseHolder: live.name } : {}),
        failover: done.failover,
        row: done.row,
        depth,
      },
      event: done.event,
    };
  }
  if (step.kind === 'check') {
    if (read === undefined) throw new RangeError('a check step needs the row’s token as the storage read it');
    const token = tokenOf(state, step.holder);
    const holders = state.holders.map((h) => (h.name === step.holder ? { ...h, checked: read } : h));
    return {
      state: { ...state, holders, depth },
      // What the lab's worker records as it sets out to write (write_sent), with what its check read.
      event: {
        actor: step.holder,
        kind: 'write_sent',
        token,
        detail: { value: nextValue(state, step.holder), checked: read, passed: token >= read },
      },
    };
  }
  if (step.kind === 'acquire') {
    const granted = grant(state, step.holder, rule);
    const counted = holderOf(granted.state, step.holder).writeToken;
    if (state.failover) {
      return { state: { ...granted.state, depth }, event: grantEvent(state.failover, step.holder, granted.token) };
    }
    return {
      state: { ...granted.state, depth },
      event: {
        actor: step.holder,
        kind: 'lease_acquired',
        token: granted.token,
        detail: counted === granted.token ? {} : { counter: counted },
      },
    };
  }
  if (step.kind === 'renew' || step.kind === 'release') {
    const holder = holderOf(state, step.holder);
    const token = holder.token as number;
    const holds = state.leaseHolder === step.holder;
    if (step.kind === 'release') {
      if (!holds) throw new RangeError(`${step.holder} does not hold the lease to release it`);
      const { leaseHolder: _given, ...rest } = state;
      return { state: { ...rest, depth }, event: { actor: step.holder, kind: 'lease_released', token, detail: {} } };
    }
    const holders = state.holders.map((h) =>
      h.name === step.holder ? (holds ? { ...h, renewed: true } : { ...h, lost: true }) : h,
    );
    const current = state.leaseHolder === undefined ? undefined : holderOf(state, state.leaseHolder);
    return {
      state: { ...state, holders, depth },
      // As the lab's worker records them: fl_renew_lease's event, or the client's own "I lost it".
      event: holds
        ? { actor: step.holder, kind: 'lease_renewed', token, detail: {} }
        : {
            actor: step.holder,
            kind: 'lease_lost',
            token,
            detail: {
              reason: 'its renewal was refused',
              ...(current ? { heldBy: current.name, heldWithToken: current.token } : {}),
            },
          },
    };
  }
  if (step.kind === 'expire') {
    const holder = state.leaseHolder;
    if (holder === undefined) throw new RangeError('no live lease to run out');
    const { leaseHolder: _gone, ...rest } = state;
    const holders = state.holders.map((h) => (h.name === holder ? { ...h, ranOut: true } : h));
    return {
      state: { ...rest, holders, depth },
      event: { actor: holder, kind: 'lease_expired', token: holderOf(state, holder).token as number, detail: {} },
    };
  }
  if (!written) throw new RangeError('a write step needs the storage’s outcome');
  const token = tokenOf(state, step.holder);
  const value = nextValue(state, step.holder);
  const accepted = written.outcome === 'accepted';
  const holders = state.holders.map((h) => {
    if (h.name !== step.holder) return h;
    const { checked: _used, renewed: _spent, ...rest } = h;
    return { ...rest, writesDone: h.writesDone + 1, ...(accepted ? { lastWrittenToken: token } : {}) };
  });
  if (state.failover) {
    const row = accepted ? { value, token } : state.row;
    return {
      state: {
        ...state,
        holders,
        row,
        failover: accepted ? writtenOnPair(state.failover, row) : state.failover,
        depth,
      },
      event: writeEvent(state.failover, {
        holder: step.holder,
        token,
        value,
        accepted,
        ...(written.storedToken === undefined ? {} : { storedToken: written.storedToken }),
      }),
    };
  }
  return {
    state: { ...state, holders, row: accepted ? { value, token } : state.row, depth },
    event: {
      actor: step.holder,
      kind: accepted ? 'write_accepted' : 'write_rejected',
      token,
      ...(written.storedToken === undefined ? {} : { storedToken: written.storedToken }),
      outcome: accepted ? 'accepted' : 'stale',
      detail: {
        value,
        ...(written.path === undefined ? {} : { path: written.path }),
        ...(written.outcome === 'refused' ? { refusedBy: 'trigger' } : {}),
        ...(written.outcome === 'stale' && state.checkFirst ? { refusedBy: 'check' } : {}),
      },
    },
  };
}
