import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import { readLabRow } from '../../db/lab-rows';
import { closePool } from '../../db/pool';
import { listWorkerStatus } from '../../db/worker-status';
import { toWire, type WireEvent } from '../model/core/wire';
import { type LabInstance, sharedLab } from '../model/lab/lab-instance';
import { WORKER_LAB_IDS, type WorkerLabId } from '../model/lab/lab-kinds';
import { performAction } from '../model/story/story-engine';
import type { RowNow } from '../model/walkthrough/narration';
import { falseClaims } from '../model/walkthrough/narration-oracle';
import { factsFrom, type Step, walkthroughFor, walkthroughSettings } from '../model/walkthrough/walkthrough';
import { serverStoryDriver } from '../supervisor/story-driver';
import { getSupervisor } from '../supervisor/supervisor';

/*
 * Every lab's walkthrough, walked to the end with real workers, the way the page runs it: each
 * step's action, then its narration read from the events and the row at that moment, and every
 * token, value, holder, time and row it names checked against them (lib/model/walkthrough/narration-oracle.ts).
 * Then A leaves (crashed), B writes again (every 8 s here, not 30 s) and the last step, read again,
 * must still be true.
 */

const B_WRITES_EVERY_MS = 8_000;
const STEP_TIMEOUT_MS = 25_000;
const POLL_MS = 50;

after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

type Moment = { events: WireEvent[]; row: RowNow | undefined };

async function moment(lab: LabInstance): Promise<Moment> {
  const events = (await listEvents({ lab: lab.id })).map(toWire);
  const row = await readLabRow(lab);
  return { events, row: row && { value: row.value, lastToken: Number(row.lastToken) } };
}

async function until(
  lab: LabInstance,
  what: string,
  done: (m: Moment) => boolean,
  timeoutMs = STEP_TIMEOUT_MS,
): Promise<Moment> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = await moment(lab);
    if (done(m)) return m;
    if (Date.now() > deadline) {
      // What the lab recorded, so that a timeout says what happened instead of only what did not.
      const last = m.events
        .slice(-30)
        .map((e) => `${e.id} ${e.actor} ${e.kind} ${e.token ?? ''} ${JSON.stringify(e.detail)}`);
      throw new Error(`timed out waiting for ${what}; the lab's last events:\n${last.join('\n')}`);
    }
    await sleep(POLL_MS);
  }
}

/** The step's action, as the page does it: through the one story engine, here on the server's driver. */
async function act(lab: LabInstance, step: Step): Promise<void> {
  const settings = walkthroughSettings(lab.kind);
  const workers = { A: settings.A, B: { ...settings.B, writeEveryMs: B_WRITES_EVERY_MS } };
  await performAction(
    step.action,
    workers,
    serverStoryDriver(lab, (events) => factsFrom(events, lab.kind)),
  );
}

/** The narration of `step` at this moment, and what in it is false of the events and the row. */
function read(lab: LabInstance, step: Step, m: Moment) {
  const text = step.narrate(factsFrom(m.events, lab.kind), m.row);
  return { text, wrong: falseClaims(text, m.events, m.row) };
}

/*
 * The tests of each describe run side by side, each in its own lab (most of each test is real time:
 * leases running out, B's write period), a few at a time: the machine has 2 CPUs, and a worker starved
 * for long misses its own lease. The two describes share labs, so the second starts when the first ends.
 */
const SIDE_BY_SIDE = 3;

describe('every lab’s narration, read against the database at each step', { concurrency: SIDE_BY_SIDE }, () => {
  for (const kind of WORKER_LAB_IDS) {
    test(`${kind}: every word of every step, and of the last step once B wrote again`, async () => {
      const lab = sharedLab(kind as WorkerLabId);
      const steps = walkthroughFor(kind);
      try {
        for (const step of steps) {
          await act(lab, step);
          const m = await until(lab, step.waitingFor, (at) => step.done(factsFrom(at.events, kind)));
          const { text, wrong } = read(lab, step, m);
          assert.deepEqual(wrong, [], `step "${step.id}": ${text}`);
        }
        const last = steps.at(-1) as Step;
        const late = factsFrom((await moment(lab)).events, kind).lateWriteA as WireEvent;
        const firstB = factsFrom((await moment(lab)).events, kind).writeB as WireEvent;
        // A leaves (crashed), so that B writes again in every lab: where the row's check refuses
        // every newer token (token-as-text, once A's "9" is in), A and B would otherwise race for
        // each lease that runs out, and B may lose every race for as long as the test waits.
        await getSupervisor().crash(lab, 'A');
        // B writes again after the story's end; in a fenced lab its new value is what the row holds.
        const m = await until(
          lab,
          'B to write again',
          (at) =>
            at.events.some(
              (e) =>
                e.actor === 'B' &&
                e.id > late.id &&
                e.kind.startsWith('write_') &&
                e.detail.value !== firstB.detail.value &&
                e.kind !== 'write_sent',
            ),
          // Three of B's write periods: one may fall just before A's late write.
          3 * B_WRITES_EVERY_MS + 5_000,
        );
        const { text, wrong } = read(lab, last, m);
        assert.deepEqual(wrong, [], `the last step once B wrote again: ${text}`);
        assert.doesNotMatch(text, new RegExp(`holds B's value ${JSON.stringify(firstB.detail.value)}`));
      } finally {
        await getSupervisor().stopLab(lab);
        // The lab as the next test file finds a shared lab: no lane left of the crashed A.
        await getSupervisor().resetLab(lab);
      }
    });
  }
});

/*
 * The run a new user made go otherwise (issue 34): A stopped for real (SIGSTOP) for longer than its
 * lease after its first write, so that its lease runs out and it takes a second one, with a new token,
 * before the story's freeze or hold. Every step must then name the lease that really ran out.
 */
const STALLED_LABS = ['fenced', 'token-as-text', 'no-fencing', 'delayed-packet-unfenced'] as const;

/** Stops A's process for `ms` (the whole process: no thread runs), then lets it go on. */
async function stallA(lab: LabInstance, ms: number): Promise<void> {
  const a = (await listWorkerStatus(lab.id)).find((w) => w.name === 'A' && w.live);
  const pid = a?.origin?.workerPid;
  assert.ok(pid, 'A runs in a process of this server');
  process.kill(pid, 'SIGSTOP');
  try {
    await sleep(ms);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

describe('every lab’s narration when A stalls past its lease before the freeze', {
  concurrency: SIDE_BY_SIDE,
}, () => {
  for (const kind of STALLED_LABS) {
    test(`${kind}: each step names the lease that really ran out`, async () => {
      const lab = sharedLab(kind);
      const steps = walkthroughFor(kind);
      const ttl = walkthroughSettings(kind).A.leaseTtlMs;
      try {
        for (const [index, step] of steps.entries()) {
          await act(lab, step);
          const m = await until(lab, step.waitingFor, (at) => step.done(factsFrom(at.events, kind)));
          const { text, wrong } = read(lab, step, m);
          assert.deepEqual(wrong, [], `step "${step.id}": ${text}`);
          if (index !== 1) continue;
          // After A's first write: stalled past its lease, A takes the lease again with a new token.
          const first = m.events.find((e) => e.actor === 'A' && e.kind === 'lease_acquired');
          await stallA(lab, ttl + 1_000);
          await until(lab, 'A to take the lease again', (at) =>
            at.events.some((e) => e.actor === 'A' && e.kind === 'lease_acquired' && e.id > (first?.id ?? 0)),
          );
        }
        const facts = factsFrom((await moment(lab)).events, kind);
        const grants = (await moment(lab)).events.filter((e) => e.actor === 'A' && e.kind === 'lease_acquired');
        assert.ok(grants.length >= 2, 'A was granted the lease again after its stall');
        assert.notEqual(facts.tokenA, grants[0]?.token, "the story's lease is not A's first");
      } finally {
        await getSupervisor().stopLab(lab);
      }
    });
  }
});
