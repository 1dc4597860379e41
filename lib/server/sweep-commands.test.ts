import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { closeLab, findLab, listOpenLabsOpenedFrom } from '../../db/labs';
import { closePool } from '../../db/pool';
import type { SweepView } from '../model/sweep/sweep-view';
import { getSupervisor } from '../supervisor/supervisor';
import { SWEEP_ADDRESS } from '../sweep/cell-labs';
import { waitFor } from '../testing/wait';
import { newOwnerSecret, trainerKey, trainerProofOf } from './access';
import { JobRunner } from './job-runner';
import * as commands from './lab-commands';
import { startSweep, stopSweep, sweepPageData, sweepStatus } from './sweep-commands';

/*
 * Who may sweep, and the server's limits, whatever a page sends: a browser with neither the trainer
 * key nor a private lab is refused; a grid past the limits is refused with the reason; one sweep
 * runs at a time in the room (its runs are jobs, run here by this process's job runner); a sweep is seen only by whoever started it (and the trainer); it is
 * stopped by whoever started it or the trainer, its run under way reported stopped.
 */

// The sweeps' runs are jobs: this process is one app server of the room, taking them from the queue.
const runner = new JobRunner(2);
before(() => runner.start());

after(async () => {
  await runner.close();
  await getSupervisor().shutdown();
  await closePool();
});

const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
const tiny = { grid: { pausesMs: [300], ttlsMs: [2000] }, concurrency: 2 };

async function until(id: string, done: (view: SweepView) => boolean): Promise<SweepView> {
  return waitFor(
    async () => {
      const status = await sweepStatus({ id }, TRAINER);
      assert.ok(status.ok, JSON.stringify(status));
      return done(status.data) ? status.data : undefined;
    },
    `sweep ${id}`,
    { timeoutMs: 90_000, everyMs: 200 },
  );
}

/** The sweeps' run labs open now, by id. */
const openRunLabs = async () => new Set((await listOpenLabsOpenedFrom(SWEEP_ADDRESS)).map((lab) => lab.id));

const finished = (id: string) => until(id, (view) => !view.running);

/** A run that played out: whatever it showed, it was neither cut short by a stop nor unfinished. */
const concluded = (outcome: string | undefined) =>
  outcome !== undefined && outcome !== 'stopped' && outcome !== 'unfinished';

test('a browser with neither the trainer key nor a private lab may not sweep', async () => {
  const stranger = { ownerSecret: newOwnerSecret() };
  for (const credentials of [{}, stranger, { trainerProof: 'forged' }]) {
    const refused = await startSweep(tiny, credentials);
    assert.equal(refused.ok, false);
    assert.equal(refused.ok ? undefined : refused.error.code, 'forbidden');
    assert.deepEqual(await sweepPageData(credentials), { allowed: false, mayStart: false });
  }
});

test('a grid past the limits is refused with the reason, before anything starts', async () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ grid: { pausesMs: [100, 200, 300, 400, 500], ttlsMs: [500, 600, 700, 800, 900] } }, /at most 24 points/],
    [{ grid: { pausesMs: [200], ttlsMs: [1000] }, concurrency: 3 }, /runs at once must be at most 2/],
    [{ grid: { pausesMs: [200], ttlsMs: [1000], sql: 'DROP TABLE labs' } }, /^grid has a field it does not take: sql$/],
    [{ grid: { pausesMs: ['200'], ttlsMs: [1000] } }, /pause lengths must be numbers/],
  ];
  for (const [input, reason] of cases) {
    const refused = await startSweep(input, TRAINER);
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? '' : refused.error.message, reason);
  }
});

test('one sweep at a time in the room, each seen only by whoever started it', async () => {
  const owner = { ownerSecret: newOwnerSecret() };
  const opened = await commands.openPrivateLab({ kind: 'fenced' }, { ...owner, address: '198.18.200.1' });
  assert.ok(opened.ok);
  const started = await startSweep(tiny, TRAINER);
  assert.ok(started.ok, JSON.stringify(started));
  assert.deepEqual([started.data.total, started.data.done, started.data.running], [2, 0, true]);
  const second = await startSweep(tiny, owner);
  assert.equal(second.ok ? undefined : second.error.code, 'limit_reached');
  assert.match(second.ok ? '' : second.error.message, /a sweep is already running in the room/);
  const peek = await sweepStatus({ id: started.data.id }, owner);
  assert.equal(peek.ok ? undefined : peek.error.message, 'no such sweep');

  const done = await finished(started.data.id);
  assert.deepEqual(
    done.results.map((r) => r.fencing),
    ['unfenced', 'fenced'],
  );
  // A 300 ms freeze in a 2 s lease usually ends with no stale write; on a loaded machine A may stall
  // past its lease before its freeze, which is a true outcome too. What the room's rule needs is that
  // both runs played out (none cut short or failed), and that the fenced one let nothing stale through.
  for (const run of done.results)
    assert.ok(concluded(run.outcome), `${run.fencing}: ${run.outcome} ${run.failure ?? ''}`);
  assert.notEqual(done.results[1]?.outcome, 'stale-accepted');
  assert.equal((await sweepPageData(TRAINER)).latest?.id, started.data.id);
  // Once it ended, the private lab's owner may sweep too.
  const theirs = await startSweep(tiny, owner);
  assert.ok(theirs.ok, JSON.stringify(theirs));
  await waitFor(
    async () => {
      const status = await sweepStatus({ id: theirs.data.id }, owner);
      assert.ok(status.ok);
      return !status.data.running;
    },
    "the owner's sweep to end",
    { timeoutMs: 90_000, everyMs: 200 },
  );
});

test('a sweep is stopped by whoever started it or by the trainer, not by another browser', async () => {
  const owner = { ownerSecret: newOwnerSecret() };
  const other = { ownerSecret: newOwnerSecret() };
  for (const [who, address] of [
    [owner, '198.18.200.2'],
    [other, '198.18.200.3'],
  ] as const) {
    assert.ok((await commands.openPrivateLab({ kind: 'fenced' }, { ...who, address })).ok);
  }
  // Four runs, one at a time: stopped once the first has ended, while the second is under way.
  const before = await openRunLabs();
  const started = await startSweep({ grid: { pausesMs: [300], ttlsMs: [2000, 3000] }, concurrency: 1 }, owner);
  assert.ok(started.ok, JSON.stringify(started));
  const id = started.data.id;
  await until(id, (view) => view.done >= 1);
  // The second run's job is taken from the queue within a poll: once its lab is open, it is under way.
  // Its lab, not one a file before this left open (a server killed mid-sweep in another test of the lane).
  await waitFor(async () => [...(await openRunLabs())].some((lab) => !before.has(lab)), "the second run's lab");
  const refused = await stopSweep({ id }, other);
  assert.equal(refused.ok ? undefined : refused.error.message, 'no such sweep');
  const stopping = await stopSweep({ id }, owner);
  assert.ok(stopping.ok, JSON.stringify(stopping));
  assert.equal(stopping.data.stopped, true);
  const stopped = await finished(id);
  assert.equal(stopped.total, 4);
  assert.ok(stopped.done < stopped.total, `no run started after the stop: ${stopped.done} of 4`);
  const outcomes = stopped.results.map((r) => r.outcome);
  // The runs that ended before the stop keep their outcome; the one under way is reported stopped, not
  // as a violation (or, had it played out before its job saw the stop, keeps its own outcome too).
  assert.ok(
    outcomes.slice(0, -1).every(concluded) && (outcomes.at(-1) === 'stopped' || concluded(outcomes.at(-1))),
    `outcomes in order: ${outcomes.join(', ')}`,
  );
  assert.ok(outcomes.length >= 2, `the run under way at the stop is reported: ${outcomes.join(', ')}`);
  assert.equal(stopped.results.length, stopped.done);
  for (const run of stopped.results) assert.ok((await findLab(run.lab))?.closedAt, `${run.lab} is closed`);

  // The trainer stops a browser's sweep (it sees the one running on arrival), and the room's slot is free again.
  const beforeTheirs = await openRunLabs();
  const theirs = await startSweep(tiny, other);
  assert.ok(theirs.ok, JSON.stringify(theirs));
  assert.equal((await sweepPageData(TRAINER)).latest?.id, theirs.data.id);
  // Stopped once a run's lab is open (its workers not started yet, so it cannot have played out).
  await waitFor(
    async () => [...(await openRunLabs())].some((lab) => !beforeTheirs.has(lab)),
    "the trainer-stopped sweep's run",
  );
  const byTrainer = await stopSweep({ id: theirs.data.id }, TRAINER);
  assert.ok(byTrainer.ok, JSON.stringify(byTrainer));
  const ended = await finished(theirs.data.id);
  assert.equal(ended.stopped, true);
  // A run a server had taken is reported stopped; one still in the queue never runs.
  assert.ok(ended.results.length >= 1 && ended.results.length <= 2, `${ended.results.length} runs reported`);
  assert.deepEqual(
    ended.results.map((r) => r.outcome),
    ended.results.map(() => 'stopped'),
  );
  const again = await startSweep(tiny, owner);
  assert.ok(again.ok, JSON.stringify(again));
  assert.ok((await stopSweep({ id: again.data.id }, owner)).ok);
  await finished(again.data.id);
});

test('a browser whose private labs have all closed still sees its sweeps, but starts none until it opens a lab', async () => {
  const owner = { ownerSecret: newOwnerSecret() };
  const opened = await commands.openPrivateLab({ kind: 'fenced' }, { ...owner, address: '198.18.200.4' });
  assert.ok(opened.ok, JSON.stringify(opened));
  assert.deepEqual(await sweepPageData(owner), { allowed: true, mayStart: true });
  await closeLab(opened.data.id);
  assert.deepEqual(await sweepPageData(owner), { allowed: true, mayStart: false });
  const refused = await startSweep(tiny, owner);
  assert.equal(refused.ok ? undefined : refused.error.code, 'forbidden');
  assert.match(refused.ok ? '' : refused.error.message, /your private labs have all closed/);
});
