import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { isFencingError } from '../lib/model/core/errors';
import type { ForkRecord } from '../lib/model/history/what-if';
import { MAX_PRIVATE_LABS_PER_OWNER } from '../lib/model/lab/lab-inputs';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { MAX_FORKS_PER_BROWSER } from '../lib/model/lab/lab-limits';
import { listEvents } from './events';
import { fencedWrite, readProtectedRow } from './fenced-write';
import { closeLab, createPrivateLab, deleteExpiredLabHistories, findLab, type LabRecord } from './labs';
import { acquireLease, readLease } from './leases';
import { closePool, getPool } from './pool';

/** The room's cap in these tests (FENCING_LAB_MAX_PRIVATE_LABS; 120 by default): small, so a flood reaches it quickly. */
const MAX_PRIVATE_LABS = 30;

/*
 * The private-lab limits as the database enforces them (counted and inserted under one lock), a
 * closed lab's lease released, and the history pruner: old closed labs' histories go, protected
 * rows and the token sequence never do.
 */

const HOUR_MS = 3_600_000;
const opened: LabRecord[] = [];

after(async () => {
  for (const lab of opened) await closeLab(lab.id).catch(() => undefined);
  await closePool();
});

const newOwner = () => randomBytes(16).toString('hex');
const newAddress = () => `203.0.113.${randomBytes(1)[0]}-${randomBytes(4).toString('hex')}`;

async function open(input: {
  owner?: string;
  address?: string;
  kind?: LabId;
  opensPerAddress?: number;
  fork?: ForkRecord;
}) {
  const lab = await createPrivateLab({
    kind: input.kind ?? 'no-fencing',
    ownerHash: input.owner ?? newOwner(),
    openedFrom: input.address ?? newAddress(),
    initialValue: 'initial',
    opensPerAddress: input.opensPerAddress ?? 1_000,
    opensWindowMs: HOUR_MS,
    maxOpen: MAX_PRIVATE_LABS,
    ...(input.fork ? { fork: { record: input.fork, rowToken: 0 } } : {}),
  });
  opened.push(lab);
  return lab;
}

async function openPrivateCount(): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>(
    "SELECT count(*)::int AS n FROM labs WHERE visibility = 'private' AND closed_at IS NULL",
  );
  return rows[0]?.n ?? 0;
}

async function closeAllOpened(): Promise<void> {
  for (const lab of opened.splice(0)) await closeLab(lab.id);
}

test('200 concurrent openings from different browsers and addresses: never more labs open than the cap', async () => {
  const before = await openPrivateCount();
  const results = await Promise.allSettled(Array.from({ length: 200 }, () => open({})));
  const refused = results.filter((r) => r.status === 'rejected');
  assert.equal(results.length - refused.length, MAX_PRIVATE_LABS - before);
  for (const r of refused) {
    assert.ok(isFencingError(r.reason, 'limit_reached'), String(r.reason));
    assert.match(r.reason.message, /the room already has 30 private labs open/);
  }
  assert.equal(await openPrivateCount(), MAX_PRIVATE_LABS);
  await closeAllOpened();
});

test('one browser opening labs concurrently gets at most 3', async () => {
  const owner = newOwner();
  const results = await Promise.allSettled(Array.from({ length: 20 }, () => open({ owner })));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, MAX_PRIVATE_LABS_PER_OWNER);
  const refused = results.find((r) => r.status === 'rejected');
  assert.match(
    String(refused?.status === 'rejected' && refused.reason.message),
    /you already have 3 private labs open/,
  );
  await closeAllOpened();
});

test('one browser starts at most 6 what-if forks an hour, closed ones counted, and another browser still may', async () => {
  const owner = newOwner();
  const record: ForkRecord = {
    from: 'fenced',
    atMs: 0,
    pauseMs: 1_000,
    leaseTtlMs: 3_000,
    renewEveryMs: 1_000,
    fencing: 'no-fencing',
    startRow: undefined,
    highestTokenSeen: 0,
  };
  for (let i = 0; i < MAX_FORKS_PER_BROWSER; i++) {
    // Each closed at once: the owner never has 3 open, so only the fork count can refuse.
    const fork = await open({ owner, fork: record });
    await closeLab(fork.id);
  }
  await assert.rejects(open({ owner, fork: record }), (error: unknown) => {
    assert.ok(isFencingError(error, 'rate_limited'), String(error));
    assert.match((error as Error).message, /you started 6 what-if forks in the last hour/);
    return true;
  });
  // A lab that is not a fork is not counted against forks; another browser may fork.
  await open({ owner });
  const theirs = await open({ owner: newOwner(), fork: record });
  assert.equal((await findLab(theirs.id))?.kind, 'no-fencing');
  await closeAllOpened();
});

test('one address holds a limited number of labs open, and opens a limited number per window, whatever the owner secret', async () => {
  const address = newAddress();
  // At most ceil(5 / 2) = 3 open at once from one address, however many are asked for together.
  const results = await Promise.allSettled(Array.from({ length: 12 }, () => open({ address, opensPerAddress: 5 })));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3);
  const held = results.find((r) => r.status === 'rejected');
  assert.ok(held?.status === 'rejected' && isFencingError(held.reason, 'limit_reached'));
  assert.match(held.reason.message, /your address already has 3 private labs open/);
  // Closing gives back a place to hold, not the openings of the hour: 2 more, then no more.
  await closeAllOpened();
  await open({ address, opensPerAddress: 5 });
  await open({ address, opensPerAddress: 5 });
  const refused = await open({ address, opensPerAddress: 5 }).then(
    () => assert.fail('a sixth opening within the hour'),
    (error: unknown) => error,
  );
  assert.ok(isFencingError(refused, 'rate_limited'));
  assert.match((refused as Error).message, /your address opened 5 private labs in the last hour/);
  // Another address is not held back by this one.
  await open({ opensPerAddress: 5 });
  await closeAllOpened();
});

test('a closed lab holds no lease row', async () => {
  const lab = await open({ kind: 'fenced' });
  const granted = await acquireLease({ resource: lab.resource, holder: 'A', ttlMs: 60_000, lab: lab.id });
  assert.equal(granted.outcome, 'granted');
  assert.ok(await readLease(lab.resource));
  await closeAllOpened();
  assert.equal(await readLease(lab.resource), undefined);
  assert.ok((await findLab(lab.id))?.closedAt, 'the lab is closed, its history still there');
  assert.ok((await listEvents({ lab: lab.id })).length > 0);
});

test('the history pruner deletes an old closed private lab history, never a protected row nor a token', async () => {
  const fenced = await open({ kind: 'fenced' });
  const broken = await open({ kind: 'no-fencing' });
  const recent = await open({ kind: 'no-fencing' });
  const granted = await acquireLease({ resource: fenced.resource, holder: 'A', ttlMs: 60_000, lab: fenced.id });
  assert.ok(granted.outcome === 'granted');
  const token = granted.lease.token;
  const write = await fencedWrite({ rowId: fenced.rowId, token, value: 'A-1', lab: fenced.id, actor: 'A' });
  assert.equal(write.outcome, 'accepted', JSON.stringify(write));
  for (const lab of [broken, recent])
    await acquireLease({ resource: lab.resource, holder: 'B', ttlMs: 60_000, lab: lab.id });
  await closeAllOpened();
  // Two of them closed 25 hours ago by the database's clock; the third just now.
  await getPool().query("UPDATE labs SET closed_at = closed_at - interval '25 hours' WHERE id = ANY($1)", [
    [fenced.id, broken.id],
  ]);
  const epochBefore = await lastEpoch();

  const swept = await deleteExpiredLabHistories({ retentionMs: 24 * HOUR_MS });
  assert.deepEqual(swept.sort(), [fenced.id, broken.id].sort());
  for (const lab of [fenced, broken]) {
    assert.deepEqual(await listEvents({ lab: lab.id }), [], `${lab.id}'s events are gone`);
    assert.equal(await findLab(lab.id), undefined, `${lab.id} now answers like a lab that does not exist`);
    assert.equal(await readLease(lab.resource), undefined);
  }
  const { rows: unguarded } = await getPool().query('SELECT 1 FROM unguarded_rows WHERE lab = $1', [broken.id]);
  assert.equal(unguarded.length, 0, "the broken lab's unguarded row is gone");
  // The protected row stays, with its value and token: an old token can never write it again.
  const row = await readProtectedRow(fenced.rowId);
  assert.equal(row?.value, 'A-1');
  assert.equal(row?.lastToken, token);
  const stale = await fencedWrite({ rowId: fenced.rowId, token: token - 1, value: 'old', lab: fenced.id, actor: 'A' });
  assert.notEqual(stale.outcome, 'accepted');
  assert.ok((await lastEpoch()) >= epochBefore, 'the token sequence never goes back');
  // The recent one is kept; a second pass finds nothing more.
  assert.ok((await listEvents({ lab: recent.id })).length > 0);
  assert.deepEqual(await deleteExpiredLabHistories({ retentionMs: 24 * HOUR_MS }), []);
});

async function lastEpoch(): Promise<bigint> {
  const { rows } = await getPool().query<{ v: string }>('SELECT last_value::text AS v FROM write_epoch');
  return BigInt(rows[0]?.v ?? '0');
}
