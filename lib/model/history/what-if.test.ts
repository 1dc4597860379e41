import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recorded } from '../../testing/histories';
import { forkRefusal, MAX_FORKS_PER_BROWSER } from '../lab/lab-limits';
import { describeFork, type ForkRecord, forkStart, whatIfInput } from './what-if';
import { forkKind, hasPauseStory, WHAT_IF_LIMITS, whatIfDefaults, whatIfDefaultsInWords } from './what-if-settings';

const fenced = recorded('fenced');
const first = fenced[0]?.at ?? 0;
const valid = { lab: 'fenced', atMs: 0, pauseMs: 3_000, leaseTtlMs: 3_000, renewEveryMs: 1_000, fencing: 'fenced' };

describe('a what-if fork, without a database', () => {
  test('starts from the row and the tokens as they were at the moment', () => {
    const writeB = fenced.find((e) => e.actor === 'B' && e.kind === 'write_accepted');
    assert.ok(writeB);
    const beforeB = forkStart(fenced, writeB.at - first - 1);
    assert.deepEqual(beforeB?.row, { value: 'A-1', lastToken: 62 });
    // B's grant came just before its write: its token was seen, though the row does not hold it yet.
    assert.equal(beforeB?.highestTokenSeen, 63);
    const atB = forkStart(fenced, writeB.at - first);
    assert.deepEqual(atB?.row, { value: 'B-1', lastToken: 63 });
    assert.equal(atB?.highestTokenSeen, 63);
    assert.equal(forkStart(fenced, 0)?.row, undefined, 'before any write, no row to carry over');
    assert.equal(forkStart([], 0), undefined);
  });

  test('the form says where each first value comes from: the original, or a default said to be one', () => {
    assert.equal(
      whatIfDefaultsInWords(fenced),
      "Where the first values come from: the pause, 3 s, is how long A stayed frozen in the original (a fork cannot wait for someone to resume it, so its freeze has a length); the lease TTL (1.5 s) and the renewal (every 0.5 s) are A's in the original.",
    );
    assert.match(
      whatIfDefaultsInWords([]),
      /the pause, 3 s, is a default: A did not freeze in the original; the lease TTL \(3 s\) .* are defaults/,
    );
  });

  test('the form starts from the original’s own lease and freeze', () => {
    assert.deepEqual(whatIfDefaults(fenced), { pauseMs: 3_000, leaseTtlMs: 1_500, renewEveryMs: 500 });
    assert.deepEqual(whatIfDefaults([]), { pauseMs: 3_000, leaseTtlMs: 3_000, renewEveryMs: 1_000 });
    // In tenths of a second, as the form counts.
    const woke = fenced.map((e) => (e.kind === 'pause_ended' ? { ...e, detail: { ...e.detail, frozenMs: 1_435 } } : e));
    assert.equal(whatIfDefaults(woke).pauseMs, 1_400);
  });

  test('inputs are checked with their bounds, and the renewal must come before the lease ends', () => {
    assert.equal(whatIfInput.safeParse(valid).success, true);
    for (const wrong of [
      { pauseMs: 100 },
      { pauseMs: 20_001 },
      { leaseTtlMs: 499 },
      { renewEveryMs: 3_000 },
      { atMs: -1 },
      { atMs: 1.5 },
      { fencing: 'sometimes' },
      { lab: 'p-short' },
      { extra: true },
    ]) {
      assert.equal(whatIfInput.safeParse({ ...valid, ...wrong }).success, false, JSON.stringify(wrong));
    }
  });

  test('only the pause story’s labs fork, into the fenced lab or the one without a token check', () => {
    assert.equal(hasPauseStory('fenced'), true);
    assert.equal(hasPauseStory('token-as-text'), true);
    assert.equal(hasPauseStory('drifting-clock'), false);
    assert.equal(hasPauseStory('delayed-packet'), false);
    assert.equal(hasPauseStory('failover'), false);
    assert.deepEqual([forkKind('fenced'), forkKind('no-fencing')], ['fenced', 'no-fencing']);
  });

  test('a browser may start a few forks an hour, then is told to wait', () => {
    assert.equal(forkRefusal(MAX_FORKS_PER_BROWSER - 1), undefined);
    assert.equal(forkRefusal(MAX_FORKS_PER_BROWSER)?.code, 'rate_limited');
  });

  test('the fork’s note says truthfully what its row started from, for each fencing mode', () => {
    const record: ForkRecord = {
      from: 'fenced',
      atMs: 1_500,
      pauseMs: 2_000,
      leaseTtlMs: 6_000,
      renewEveryMs: 2_000,
      fencing: 'no-fencing',
      startRow: { value: 'A-1', lastToken: 62 },
      highestTokenSeen: 63,
    };
    const unfenced = describeFork('Fork', record, 'Fenced');
    assert.match(
      unfenced,
      /started from the row as it was then \("A-1", token 62\) and took new tokens, past token 63/,
    );
    const fenced = describeFork('Fork', { ...record, fencing: 'fenced' }, 'Fenced');
    assert.doesNotMatch(fenced, /the row as it was then/, 'a fenced row does not keep the original’s token');
    assert.match(
      fenced,
      /started from the row's value then \("A-1"; its token was 62\), on a fenced row whose token is the newest handed out when the fork opened/,
    );
    const never = { ...record, startRow: undefined };
    assert.match(describeFork('Fork', never, 'Fenced'), /the row as it was then \(never written\) and took/);
    assert.match(
      describeFork('Fork', { ...never, fencing: 'fenced' }, 'Fenced'),
      /the row as it was then \(never written\), on a fenced row whose token is the newest handed out/,
    );
  });
});

describe('a what-if refusal speaks the unit of the field it sits under', () => {
  test('the form asks in seconds, so a too-long pause is refused in seconds, not ms', { timeout: 5_000 }, () => {
    const { max } = WHAT_IF_LIMITS.pauseMs;
    const parsed = whatIfInput.safeParse({
      lab: 'fenced',
      atMs: 0,
      pauseMs: max + 1000,
      leaseTtlMs: WHAT_IF_LIMITS.leaseTtlMs.min + 1000,
      renewEveryMs: WHAT_IF_LIMITS.renewEveryMs.min,
      fencing: 'on',
    });
    assert.equal(parsed.success, false);
    const message = parsed.error?.issues.find((i) => i.path[0] === 'pauseMs')?.message;
    assert.equal(message, `pause length must be at most ${max / 1000} s`);
  });
});
