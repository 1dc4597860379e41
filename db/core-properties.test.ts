import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import type pg from 'pg';
import { checkHistory } from '../lib/model/checker/checker';
import { toWire } from '../lib/model/core/wire';
import { HOLDERS, type Holder, type Step, stepArb } from '../lib/testing/core-schedule';
import { freshRow } from '../lib/testing/fixtures';
import { listEvents } from './events';
import { fencedWrite, type ProtectedRow, readProtectedRow } from './fenced-write';
import { acquireLease, type Lease, readLease, releaseLease, renewLease } from './leases';
import { closePool, newClient } from './pool';

/*
 * Property tests of the fencing core on the real PostgreSQL: fast-check draws schedules of grants,
 * renewals, releases, writes (with the holder's token or an older one of its own, some frozen
 * mid-transaction), writes that bypass the fenced write, time passing (leases of 100–250 ms expire by the
 * database's clock, nothing is faked), grants and renewals made late in a transaction that began
 * while the lease still ran, and holders crashing mid-transaction (their session ended by the server).
 * Each schedule runs on a row, a resource and a lab of its own; after every step the database must
 * agree with the model: accepted tokens never go back, the row is the last accepted write, no token is
 * granted twice (each grant's token is above every token minted before), a refused acquire mints
 * nothing, a stale write changes nothing, and lease outcomes follow the database's clock. At the end
 * the history checker must find no violation in the schedule's events. A failing schedule is shrunk
 * to a minimal one, which fast-check prints with the step that failed.
 *
 * NUM_RUNS is fixed at 25 schedules of 4 to 16 steps (lib/testing/core-schedule.ts): 8–16 s on a 2-CPU machine.
 */

const NUM_RUNS = Number(process.env.CORE_NUM_RUNS ?? 25);
let admin: pg.Client;
before(async () => {
  admin = newClient();
  await admin.connect();
});
after(async () => {
  await admin.end();
  await closePool();
});

const dbNow = async (s: pg.Client) => (await s.query<{ t: Date }>('SELECT clock_timestamp() AS t')).rows[0]?.t as Date;
const sequenceState = async () =>
  JSON.stringify((await admin.query('SELECT last_value, is_called FROM write_epoch')).rows[0]);

/** Runs one schedule against the database, checking the model after every step. */
async function runSchedule(schedule: Step[]): Promise<void> {
  const lab = `core-${randomUUID().slice(0, 8)}`;
  const resource = lab;
  const start = await freshRow('start');
  const sessions = new Map<Holder, pg.Client>();
  const known = new Map<Holder, number[]>(); // the tokens each holder was granted and remembers
  let highestMinted: number = start.lastToken; // every token handed out by a grant, committed or not
  let row: { value: string; token: number } = { value: start.value, token: start.lastToken };
  let stored: ProtectedRow = start;
  let bypassed = false;
  let n = 0;
  let failedAt = 'the end';

  const session = async (h: Holder) => {
    let s = sessions.get(h);
    if (!s) {
      s = newClient();
      await s.connect();
      sessions.set(h, s);
    }
    return s;
  };
  const tokenOf = (h: Holder, back = 0) => {
    const mine = known.get(h) ?? [];
    return mine[Math.max(0, mine.length - 1 - back)];
  };
  const expectGrant = (h: Holder, lease: Lease, what: string) => {
    assert.ok(
      lease.token > highestMinted,
      `${what}: token ${lease.token} granted, but ${highestMinted} was minted before`,
    );
    highestMinted = lease.token;
    known.set(h, [...(known.get(h) ?? []), lease.token]);
  };
  /** A grant or renewal in a transaction: after `delayMs`, or once the current lease has expired. */
  const leaseStep = async (h: Holder, kind: 'acquire' | 'renew', ttl: number, wait: number | 'expiry') => {
    const s = await session(h);
    const current = await readLease(resource);
    const token = tokenOf(h);
    if (kind === 'renew' && token === undefined) return;
    const sequenceBefore = await sequenceState();
    await s.query('BEGIN');
    if (wait === 'expiry' && current) {
      await s.query('SELECT pg_sleep(greatest(0, extract(epoch FROM $1::timestamptz - clock_timestamp())) + 0.01)', [
        current.expiresAt,
      ]);
    } else if (typeof wait === 'number' && wait > 0) await s.query('SELECT pg_sleep($1)', [wait / 1000]);
    const t0 = await dbNow(s);
    const request = { lab, resource, holder: h, ttlMs: ttl };
    const result = kind === 'acquire' ? await acquireLease(request, s) : await renewLease({ ...request, token }, s);
    const t1 = await dbNow(s);
    await s.query('COMMIT');
    const expired = !current || current.expiresAt <= t0;
    const running = current !== undefined && current.expiresAt > t1;
    const what = `${h} ${kind} (lease ${current ? `token ${current.token} until ${current.expiresAt.toISOString()}` : 'free'}, asked from ${t0.toISOString()} to ${t1.toISOString()})`;
    if (kind === 'acquire') {
      if (expired) assert.equal(result.outcome, 'granted', `${what}: a free or expired lease must be granted`);
      if (running) assert.equal(result.outcome, 'busy', `${what}: a running lease must be busy`);
      if (result.outcome === 'granted') expectGrant(h, (result as { lease: Lease }).lease, what);
      else assert.equal(await sequenceState(), sequenceBefore, `${what}: a refused acquire minted a token`);
    } else {
      const mine = current?.holder === h && current.token === token;
      if (!mine || expired) assert.equal(result.outcome, 'lost', `${what}: renewed a lease not held or expired`);
      if (mine && running) assert.equal(result.outcome, 'renewed', `${what}: its running lease must be renewed`);
    }
  };

  try {
    for (const step of schedule) {
      n += 1;
      let wrote = false;
      const what = `step ${n} ${JSON.stringify(step)}`;
      failedAt = what;
      if (step.op === 'acquire' || step.op === 'renew') {
        await leaseStep(step.holder, step.op, step.ttlMs, step.delayMs);
      } else if (step.op === 'late-acquire') {
        await leaseStep(step.holder, 'acquire', step.ttlMs, 'expiry');
      } else if (step.op === 'late-renew') {
        // The lease's holder, when it still knows its token: the renewal that now() would let through.
        const current = await readLease(resource);
        const holds = HOLDERS.find((h) => h === current?.holder && tokenOf(h) === current.token);
        await leaseStep(holds ?? step.holder, 'renew', step.ttlMs, 'expiry');
      } else if (step.op === 'release') {
        const token = tokenOf(step.holder);
        if (token === undefined) continue;
        const current = await readLease(resource);
        const result = await releaseLease({ lab, resource, holder: step.holder, token }, await session(step.holder));
        const mine = current?.holder === step.holder && current.token === token;
        assert.equal(result.outcome, mine ? 'released' : 'not_held', what);
      } else if (step.op === 'write' || step.op === 'bypass') {
        // The holder named, or failing that the first that holds a token: most write steps write.
        const holding = [step.holder, ...HOLDERS].filter((h) => tokenOf(h) !== undefined);
        const paused = 'paused' in step && step.paused;
        const writer = paused ? holding.sort((a, b) => (tokenOf(a) as number) - (tokenOf(b) as number))[0] : holding[0];
        if (writer === undefined) continue;
        const token = tokenOf(writer, step.older) as number;
        const value = `${writer}-${n}`;
        const fresh = token >= row.token;
        if (step.op === 'write') {
          const s = await session(writer);
          await s.query('BEGIN');
          const result = await fencedWrite({ lab, rowId: start.id, value, token, actor: writer }, s);
          if (step.frozenMs) await sleep(step.frozenMs); // frozen mid-transaction, the row locked
          await s.query('COMMIT');
          assert.deepEqual(
            result,
            fresh
              ? { outcome: 'accepted', rowId: start.id, value, token }
              : { outcome: 'stale', rowId: start.id, presentedToken: token, storedToken: row.token },
            what,
          );
        } else {
          const update = admin.query(
            'UPDATE protected_rows SET value = $1, last_token = $2, updated_at = clock_timestamp() WHERE id = $3',
            [value, token, start.id],
          );
          if (fresh) await update;
          else await assert.rejects(update, (e: { code?: string }) => e.code === 'FL001', `${what}: must be refused`);
          bypassed ||= fresh;
        }
        if (fresh) row = { value, token };
        wrote = fresh;
      } else if (step.op === 'sleep') {
        await sleep(step.ms);
      } else {
        const s = await session(step.holder);
        const lease = await readLease(resource);
        const token = tokenOf(step.holder);
        await s.query('BEGIN');
        if (step.during === 'acquire') {
          const result = await acquireLease({ lab, resource, holder: step.holder, ttlMs: 250 }, s);
          if (result.outcome === 'granted') highestMinted = Math.max(highestMinted, result.lease.token);
        } else if (token !== undefined) {
          await fencedWrite({ lab, rowId: start.id, value: `${step.holder}-lost`, token, actor: step.holder }, s);
        }
        await admin.query('SELECT pg_terminate_backend($1)', [(s as unknown as { processID: number }).processID]);
        await s.end().catch(() => undefined);
        sessions.delete(step.holder);
        known.delete(step.holder); // a crashed holder comes back with nothing
        assert.deepEqual(await readLease(resource), lease, `${what}: a crashed grant left a lease`);
      }
      const now = (await readProtectedRow(start.id)) as ProtectedRow;
      assert.ok(now.lastToken >= stored.lastToken, `${what}: the row's token went back`);
      assert.deepEqual([now.value, now.lastToken], [row.value, row.token], `${what}: not the last accepted write`);
      // A step that had no write accepted (a stale one, a crashed one) changes nothing, not even the time.
      if (!wrote) assert.deepEqual(now, stored, `${what}: the row changed`);
      stored = now;
    }
    const events = (await listEvents({ lab })).map(toWire);
    const verdict = checkHistory(events, bypassed ? undefined : { value: row.value, lastToken: row.token });
    failedAt = 'the checker';
    assert.deepEqual(verdict.violations, [], "the checker finds no violation in the schedule's history");
  } catch (error) {
    // Say which step failed, whatever threw (an assertion, or the database refusing).
    if (error instanceof Error && !error.message.startsWith('step ')) error.message = `${failedAt}: ${error.message}`;
    throw error;
  } finally {
    for (const s of sessions.values()) await s.end().catch(() => undefined);
  }
}

test(`random schedules of grants, renewals, expiries, crashes and writes keep the fencing invariants (${NUM_RUNS} schedules)`, async () => {
  await fc.assert(fc.asyncProperty(fc.array(stepArb, { minLength: 4, maxLength: 16 }), runSchedule), {
    numRuns: NUM_RUNS,
    // Under npm run test:mutations a failure is enough: no time spent shrinking it (unless verbose).
    endOnFailure: process.env.FENCING_LAB_MUTANT !== undefined && process.env.FENCING_LAB_MUTANTS_VERBOSE !== '1',
  });
});
