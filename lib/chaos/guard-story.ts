import 'server-only';
import { listEvents } from '../../db/events';
import { toWire, type WireEvent } from '../model/core/wire';
import type { StaleWriter } from '../model/guard/guard-probes';
import type { WorkerSettings } from '../model/lab/lab-inputs';
import type { LabInstance } from '../model/lab/lab-instance';
import { runStory, type StoryStep } from '../model/story/story-engine';
import { serverStoryDriver } from '../supervisor/story-driver';
import { getSupervisor } from '../supervisor/supervisor';

/*
 * The pause story the attack on a trainee's guard tells first, with real worker processes: each
 * stale writer in turn takes the lease (its token staged first: lib/model/guard/guard-probes.ts), writes,
 * and is frozen in its critical window; then B takes over with the newest token and writes; then
 * each stale writer wakes, oldest first, and sends the write it held, with its old token and its
 * value. With no constants in the statement that is the lab's story: A writes with 9, freezes, B
 * takes over with 10 and writes, A wakes and writes with 9. It waits for each write whatever its
 * outcome (a guard that refuses the rightful holder is what some trainees write). Its steps run on
 * the one story engine (lib/model/story/story-engine.ts).
 */

const LEASE_TTL_MS = 1_500;
const STALE_SETTINGS = { leaseTtlMs: LEASE_TTL_MS, renewEveryMs: 500, writeEveryMs: 300 };
const B_SETTINGS = { name: 'B', leaseTtlMs: LEASE_TTL_MS, renewEveryMs: 500, writeEveryMs: 30_000 };
/** The stale writers' names: A as in the lab's story, then past B. */
const STALE_NAMES = ['A', 'C', 'D', 'E', 'F'];

const isWrite = (e: WireEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

export async function runGuardStory(lab: LabInstance, writers: readonly StaleWriter[]): Promise<WireEvent[]> {
  const stale = writers
    .slice(0, STALE_NAMES.length)
    .map((writer, i) => ({ ...writer, name: STALE_NAMES[i] as string }));
  const settings: Record<string, WorkerSettings> = { B: B_SETTINGS };
  for (const { name, value } of stale)
    settings[name] = { name, ...STALE_SETTINGS, ...(value ? { writeValue: value } : {}) };
  try {
    await runStory(
      guardStorySteps(stale),
      settings,
      serverStoryDriver(lab, (events) => events),
    );
  } finally {
    await getSupervisor().stopLab(lab, 'the attack was over');
  }
  return (await listEvents({ lab: lab.id })).map(toWire);
}

type Events = readonly WireEvent[];
const pausesOf = (events: Events, name: string) => events.filter((e) => e.actor === name && e.kind === 'pause_started');
/** The event of `name` matching, after the last pause it started (its wake and late write come after its freeze). */
const afterItsFreeze = (events: Events, name: string, match: (e: WireEvent) => boolean) => {
  const paused = pausesOf(events, name).at(-1);
  return paused !== undefined && events.some((e) => e.actor === name && e.id > paused.id && match(e));
};

/** The story's steps: each stale writer in turn, then B, then each stale writer wakes, oldest first. */
function guardStorySteps(stale: readonly (StaleWriter & { name: string })[]): StoryStep<Events>[] {
  const steps: StoryStep<Events>[] = [
    { action: { kind: 'reset' }, waitingFor: 'the lab to be reset', done: () => true },
  ];
  for (const { name, token } of stale) {
    // Before the writer starts: the lease is held by the one frozen before it, so no grant falls between.
    steps.push(
      { action: { kind: 'stage-token', token }, waitingFor: `token ${token} staged`, done: () => true },
      {
        action: { kind: 'start', worker: name },
        waitingFor: `${name} writes`,
        done: (events) => events.some((e) => e.actor === name && isWrite(e)),
      },
      {
        action: { kind: 'freeze-before-write', worker: name },
        waitingFor: `${name} freezes`,
        done: (events) => pausesOf(events, name).length > 0,
      },
    );
  }
  steps.push({
    action: { kind: 'start', worker: 'B' },
    waitingFor: 'B writes',
    done: (events) => events.some((e) => e.actor === 'B' && isWrite(e)),
  });
  for (const { name } of stale) {
    steps.push(
      {
        action: { kind: 'resume', worker: name },
        waitingFor: `${name} wakes`,
        done: (events) => afterItsFreeze(events, name, (e) => e.kind === 'pause_ended'),
      },
      {
        action: { kind: 'none' },
        waitingFor: `${name}'s late write`,
        done: (events) => {
          const woke = events.filter((e) => e.actor === name && e.kind === 'pause_ended').at(-1);
          return woke !== undefined && events.some((e) => e.actor === name && isWrite(e) && e.id > woke.id);
        },
      },
    );
  }
  return steps;
}
