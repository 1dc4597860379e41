import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { checkHistory } from '../../model/checker/checker';
import type { WireEvent } from '../../model/core/wire';
import { failoverEvent } from '../../model/failover/failover-events';
import type { FailoverStep } from '../../model/failover/failover-steps';
import { runFailoverStory } from './failover-story';
import { type ReplicationMode, startReplicaPair } from './replica-pair';

/*
 * The failover story on a real primary and a real streaming standby (PostgreSQL 18 from the
 * embedded binaries), replication through the lab's replication link, a real SIGKILL and a real promotion.
 */

async function runStory(mode: ReplicationMode, grantsPastCut = 0) {
  const pair = await startReplicaPair({ mode });
  const steps: FailoverStep[] = [];
  try {
    const primaryPid = pair.primary.postmasterPid;
    assert.ok((await pair.processes()).includes(primaryPid), 'the primary is a live process of the pair');
    await runFailoverStory(pair, { grantsPastCut, record: (step) => void steps.push(step) });
    assert.equal(pair.primary.isRunning(), false, 'the primary was killed');
    return { steps, violations: judged(steps), dir: pair.dir, pair };
  } finally {
    await pair.stop();
  }
}

/** The steps as the lab's events (ids and times in order), judged by the one checker. */
function judged(steps: FailoverStep[]) {
  const events: WireEvent[] = steps.map((step, i) => {
    const { storedToken, token, ...event } = failoverEvent(step);
    return {
      ...event,
      id: i + 1,
      at: 1_000 * (i + 1),
      detail: event.detail ?? {},
      ...(token === undefined ? {} : { token }),
      ...(storedToken === undefined ? {} : { storedToken }),
    };
  });
  // Each rule broken, with its words (B's lost write and A's stale write are one violation, two findings).
  return checkHistory(events).violations.flatMap((v) => v.findings.map((f) => ({ kind: f.rule, message: f.message })));
}

const find = <K extends FailoverStep['kind']>(steps: FailoverStep[], kind: K, holder?: string) =>
  steps.filter(
    (s): s is Extract<FailoverStep, { kind: K }> =>
      s.kind === kind && (!holder || ('holder' in s && s.holder === holder)),
  );

test('asynchronous replication: B’s acknowledged grant and write are lost, A’s late write is accepted', async () => {
  const { steps, violations, dir, pair } = await runStory('async');
  const [grantA, grantB, grantC] = find(steps, 'grant');
  assert.ok(grantA && grantB && grantC);
  assert.ok(BigInt(grantB.token) > BigInt(grantA.token));
  const [promoted] = find(steps, 'standby_promoted');
  assert.deepEqual(
    promoted?.row,
    { value: 'A-1', lastToken: grantA.token },
    'the promoted standby’s row is back at A’s write',
  );
  assert.equal(promoted?.lease?.holder, 'A', 'the promoted standby’s lease is A’s again');
  const lateA = find(steps, 'write', 'A').at(-1);
  assert.equal(lateA?.accepted, true, 'A’s late write with its old token is accepted on the promoted standby');
  // One grant past the cut stays within the 32 values the primary logged ahead: no token twice.
  const seq = find(steps, 'primary_killed')[0]?.sequence;
  assert.ok(seq && BigInt(seq.primaryLastValue) <= BigInt(seq.standbyCeiling));
  assert.ok(BigInt(grantC.token) > BigInt(grantB.token), 'C’s token is above every token handed out');
  assert.deepEqual(violations.map((v) => v.kind).sort(), [
    'acknowledged-write-lost',
    'acknowledged-write-lost',
    'stale-write-accepted',
  ]);
  assert.match(
    violations.map((v) => v.message).join('\n'),
    /B's write "B-1" \(token \d+\), acknowledged at [\d:.]+, is not on the promoted standby/,
  );
  assert.equal(existsSync(dir), false, 'the pair’s data directories are removed');
  assert.deepEqual(await pair.processes(), [], 'no process of the pair remains');
});

test('asynchronous replication, enough grants past the cut: a token is handed out twice', async () => {
  const { steps, violations } = await runStory('async', 40);
  const atCut = find(steps, 'replication_cut')[0]?.sequence;
  const seq = find(steps, 'primary_killed')[0]?.sequence;
  assert.ok(atCut && seq);
  assert.ok(
    BigInt(seq.primaryLastValue) > BigInt(seq.standbyCeiling),
    'the primary handed out tokens the standby never heard of',
  );
  const grantC = find(steps, 'grant', 'C')[0];
  assert.ok(grantC);
  assert.equal(
    BigInt(grantC.token),
    BigInt(seq.standbyCeiling) + 1n,
    'the promoted standby goes on just above what it had',
  );
  const twice = violations.filter((v) => v.kind === 'token-granted-twice');
  assert.equal(twice.length, 1);
  assert.match(twice[0]?.message ?? '', new RegExp(`token ${grantC.token} granted twice: to others at .* and to C at`));
});

test('synchronous replication: B’s commit waits for the standby, nothing acknowledged is lost, A is rejected', async () => {
  const { steps, violations } = await runStory('sync', 40);
  const [waiting] = find(steps, 'grant_waiting');
  assert.ok(waiting && waiting.waitedMs >= 1_000, 'B’s grant waited while the wire was cut');
  const kinds = steps.map((s) => s.kind);
  assert.ok(kinds.indexOf('grant_waiting') < kinds.indexOf('replication_healed'));
  const grantB = find(steps, 'grant', 'B')[0];
  assert.ok(grantB);
  const [promoted] = find(steps, 'standby_promoted');
  assert.deepEqual(promoted?.row, { value: 'B-1', lastToken: grantB.token });
  assert.equal(promoted?.lease?.holder, 'B');
  const lateA = find(steps, 'write', 'A').at(-1);
  assert.equal(lateA?.accepted, false);
  assert.equal(lateA?.rowToken, grantB.token);
  const seq = find(steps, 'primary_killed')[0]?.sequence;
  assert.ok(seq && BigInt(seq.primaryLastValue) <= BigInt(seq.standbyCeiling));
  assert.deepEqual(violations, []);
});
