import { failoverStepOf } from '../failover/failover-events';
import { behindWords } from './failover-story';
import { type ExploreState, type Step, type StepEvent, tokenOf } from './story';

/* The explorer's steps in plain words: before a step is taken (a button's), and once taken (its event's). */

/** A step in plain words, before it is taken ("A's write with token 5 reaches the row"). */
export function stepWords(state: ExploreState, step: Step): string {
  if (step.kind === 'catch-up') return 'The standby catches up';
  if (step.kind === 'promote') {
    const behind = state.failover ? behindWords(state.failover.behind) : 'with everything acknowledged';
    return `The primary dies; the standby, ${behind}, is promoted`;
  }
  if (step.kind === 'acquire') return `${step.holder} asks for the lease`;
  if (step.kind === 'expire') return state.leaseHolder ? `${state.leaseHolder}'s lease runs out` : 'the lease runs out';
  if (step.kind === 'renew')
    return `${step.holder} renews its lease (token ${state.holders.find((h) => h.name === step.holder)?.token})`;
  if (step.kind === 'release') return `${step.holder} gives its lease back`;
  if (step.kind === 'check')
    return `${step.holder} reads the row's token to check its own (${tokenOf(state, step.holder)})`;
  return `${step.holder}'s write with token ${tokenOf(state, step.holder)} reaches the row`;
}

/** A step in plain words, once taken: what its event says came of it. */
export function eventWords(event: StepEvent): string {
  const value = String(event.detail.value ?? '');
  /** The failover lab: the server that granted or decided, when not the only one there is. */
  const on = typeof event.detail.server === 'string' ? ` on the ${event.detail.server}` : '';
  if (event.kind === 'lease_acquired') {
    const counter = event.detail.counter === undefined ? '' : ` (its own counter says ${event.detail.counter})`;
    return `${event.actor} asks for the lease and is granted token ${event.token}${counter}${on}`;
  }
  if (event.kind === 'replication_healed') {
    const step = failoverStepOf(event);
    const caughtUp = step?.kind === 'replication_healed' ? step.caughtUp : undefined;
    const shipped = behindWords(caughtUp ?? { grants: 0, writes: 0 });
    return `The standby catches up (it was ${shipped}): its row, lease and sequence are the primary's`;
  }
  if (event.kind === 'standby_promoted') return promotedWords(event);
  if (event.kind === 'lease_expired') return `${event.actor}'s lease (token ${event.token}) runs out`;
  if (event.kind === 'lease_renewed')
    return `${event.actor} renews its lease (token ${event.token}): it still holds it`;
  if (event.kind === 'lease_lost') {
    const held =
      event.detail.heldBy === undefined
        ? 'nobody holds it'
        : `${event.detail.heldBy} holds it with token ${event.detail.heldWithToken}`;
    return `${event.actor} asks to renew its lease (token ${event.token}) and is refused, since ${held}: ${event.actor} knows it lost the lease and writes no more`;
  }
  if (event.kind === 'lease_released')
    return `${event.actor} gives its lease (token ${event.token}) back: the lease is free`;
  if (event.kind === 'write_sent') {
    const verdict = event.detail.passed
      ? `passes: it will write "${value}"`
      : `fails: it will give up its write of "${value}"`;
    return `${event.actor} reads the row's token, ${event.detail.checked}, and checks its own, ${event.token}: ${verdict}`;
  }
  if (event.detail.path === 'catch-up' && event.kind === 'write_accepted')
    return `${event.actor}'s overdue write of "${value}" with token ${event.token} takes the catch-up path, which checks no token: accepted`;
  if (event.kind === 'write_accepted')
    return `${event.actor}'s write of "${value}" with token ${event.token} reaches the row${on}: accepted`;
  if (event.detail.refusedBy === 'check') {
    return `${event.actor}'s write of "${value}" with token ${event.token} is given up: its check read a newer token`;
  }
  const by = event.detail.refusedBy === 'trigger' ? ' by the row’s trigger' : '';
  return `${event.actor}'s write of "${value}" with token ${event.token} reaches the row${on}: refused as stale${by}${event.storedToken === undefined ? '' : ` (the row holds token ${event.storedToken})`}`;
}

/** "The primary dies; the standby, 1 grant behind, is promoted: its row holds "A1" with token 1, its lease is A's (token 1)". */
function promotedWords(event: StepEvent): string {
  const d = event.detail;
  const behind = d.behind as { grants?: unknown; writes?: unknown } | undefined;
  const row = d.row as { value?: unknown; lastToken?: unknown } | undefined;
  const lease = d.lease as { holder?: unknown; token?: unknown } | null | undefined;
  const lacked = behindWords({ grants: Number(behind?.grants ?? 0), writes: Number(behind?.writes ?? 0) });
  const holds = `its row holds "${String(row?.value ?? '')}" with token ${String(row?.lastToken ?? 0)}`;
  const leased = lease ? `its lease is ${String(lease.holder)}'s (token ${String(lease.token)})` : 'it holds no lease';
  // The promoted standby hands out from just above its last replayed sequence record (a BIGINT).
  const step = failoverStepOf(event);
  const ceiling = step?.kind === 'standby_promoted' ? step.sequence?.standbyCeiling : undefined;
  const next = BigInt(ceiling ?? 0) + 1n;
  return `The primary dies; the standby, ${lacked}, is promoted: ${holds}, ${leased}, and its next token is ${next}`;
}
