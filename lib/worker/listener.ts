import 'server-only';
import { writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import type pg from 'pg';
import { appendEvent } from '../../db/events';
import { DroppedNotesLog, workerCommandNoteOf } from '../../db/notification-notes';
import { newClient } from '../../db/pool';
import {
  beatRemoteWorker,
  listenForCommands,
  markRemoteWorkerStopped,
  type RemoteStatus,
  takeWorkerCommands,
} from '../../db/remote-workers';
import { markWorkerCrashed } from '../../db/worker-status';
import type { WorkerCommand } from '../model/core/worker-commands';
import { wake, wakeToStop } from './freeze';
import type { ListenerData, PauseTrigger, ToListener, ToMain } from './protocol';

/*
 * Every worker's command listener, a thread of its own (started by main.ts). It must run while the
 * main thread is frozen: it keeps the heartbeat going (so the UI shows a paused worker, not a dead
 * one), takes the trainer's commands from any app server (LISTEN, and a poll every second in case a
 * notification was missed), holds the one pause schedule (how long a pause lasts once it strikes),
 * wakes the main thread when a pause ends, and, for a worker an app server started, watches the
 * lifeline to that server: when the server goes, however it goes, this process goes at once, frozen
 * or not.
 */

const HEARTBEAT_EVERY_MS = 1_000;

type PauseLength = number | 'until-resumed';

const data = workerData as ListenerData;
const port = parentPort;
if (!port) throw new Error('the listener runs as a worker thread of lib/worker/main.ts');
const me = { lab: data.lab.id, name: data.name, instance: data.instance };

let status: RemoteStatus = { phase: 'starting', armed: false };
let stopping = false;
let client: pg.Client | undefined;
let connecting: Promise<pg.Client> | undefined;
const pending: { now?: PauseLength; criticalWindow?: PauseLength } = {};
let resumeTimer: NodeJS.Timeout | undefined;

/** Straight to the terminal: console output of a thread goes through the main thread, frozen or not. */
const say = (line: string) => {
  if (data.chatty) writeSync(1, `[${data.name}] ${line}\n`);
};
const tell = (message: ToMain) => port.postMessage(message);
const droppedNotes = new DroppedNotesLog(`worker ${data.name}`);

port.on('message', (message: ToListener) => {
  if (message.type === 'stopping') stopping = true;
  if (message.type === 'status') {
    const { type: _, ...rest } = message;
    status = rest;
    void beat();
  }
  if (message.type === 'paused') onPaused(message.trigger);
});

/** The main thread is about to block: a timed pause gets its timer, a called-off one ends at once. */
function onPaused(trigger: PauseTrigger): void {
  const slot = trigger === 'critical-window' ? 'criticalWindow' : 'now';
  const lasts = pending[slot];
  pending[slot] = undefined;
  if (lasts === undefined) wake(data.freezeState);
  if (typeof lasts === 'number') {
    resumeTimer = setTimeout(() => {
      resumeTimer = undefined;
      if (wake(data.freezeState)) say('resumed (the pause ran its length)');
    }, lasts);
  }
}

function clearPauses(): void {
  if (resumeTimer) clearTimeout(resumeTimer);
  resumeTimer = undefined;
  pending.now = undefined;
  pending.criticalWindow = undefined;
}

const lengthOf = (seconds: number | undefined): PauseLength =>
  seconds === undefined ? 'until-resumed' : Math.round(seconds * 1000);
const howLong = (lasts: PauseLength) => (lasts === 'until-resumed' ? 'until resumed' : `for ${lasts / 1000} s`);

async function obey(command: { command: WorkerCommand; seconds?: number }, db: pg.Client): Promise<void> {
  switch (command.command) {
    case 'pause-now':
      pending.now = lengthOf(command.seconds);
      say(`paused by the trainer ${howLong(pending.now)}`);
      return tell({ type: 'pause-now' });
    case 'arm-critical-pause':
      pending.criticalWindow = lengthOf(command.seconds);
      say(`will freeze before its next write, ${howLong(pending.criticalWindow)}`);
      return tell({ type: 'arm-critical-pause' });
    case 'cancel-pauses':
      clearPauses();
      return tell({ type: 'cancel-pauses' });
    case 'resume':
      clearPauses();
      tell({ type: 'cancel-pauses' });
      if (wake(data.freezeState)) say('resumed by the trainer');
      return;
    case 'crash':
      stopping = true;
      await appendEvent(
        db,
        {
          lab: data.lab.id,
          actor: data.name,
          kind: 'worker_crashed',
          resource: data.lab.resource,
          detail: { ...data.detail, signal: 'SIGKILL' },
        },
        { as: me },
      );
      await markWorkerCrashed(me, db);
      say('crashed by the trainer (SIGKILL)');
      process.kill(process.pid, 'SIGKILL');
      return;
    case 'stop':
      return stop('stopped: the lab was reset', db);
  }
}

async function stop(reason: string, db: pg.Client): Promise<void> {
  stopping = true;
  // The database may be what went: the server sees the heartbeat stop.
  await markRemoteWorkerStopped(me, db).catch(() => undefined);
  say(reason);
  // A frozen main thread wakes to exit; a running one gets the message.
  wakeToStop(data.freezeState);
  tell({ type: 'stop', reason });
}

/** One connection for the heartbeat, LISTEN and the commands; a new one when it breaks. */
function connection(): Promise<pg.Client> {
  if (client) return Promise.resolve(client);
  connecting ??= (async () => {
    const fresh = newClient(data.databaseUrl);
    try {
      await fresh.connect();
      // Inside pg's protocol parser, and any role may NOTIFY this channel: a payload that is not
      // the database's is dropped, never thrown on (that would end this thread, or wedge the connection).
      fresh.on('notification', (note) => {
        const target = workerCommandNoteOf(note.payload);
        if (!target) return droppedNotes.dropped(note.channel, note.payload);
        if (target.lab === data.lab.id && target.worker === data.name) void takeCommands();
      });
      const drop = () => {
        if (client === fresh) client = undefined;
      };
      fresh.on('error', drop);
      fresh.on('end', drop);
      await listenForCommands(fresh);
      client = fresh;
      return fresh;
    } catch (error) {
      // The connection that failed has nothing to end; the first error is rethrown.
      await fresh.end().catch(() => undefined);
      throw error;
    } finally {
      connecting = undefined;
    }
  })();
  return connecting;
}

let taking: Promise<void> | undefined;
let takeAgain = false;
/** Coalesced: one take at a time, again if a notification came meanwhile. */
function takeCommands(): Promise<void> {
  if (taking) {
    takeAgain = true;
    return taking;
  }
  taking = (async () => {
    do {
      takeAgain = false;
      if (stopping) return;
      const db = await connection();
      for (const command of await takeWorkerCommands(
        { lab: data.lab.id, worker: data.name, instance: data.instance },
        db,
      )) {
        await obey(command, db);
      }
    } while (takeAgain);
  })()
    .catch(() => undefined) // the database is away: the next tick tries again
    .finally(() => {
      taking = undefined;
    });
  return taking;
}

let beating: Promise<void> | undefined;
let beatAgain = false;
/** Coalesced like takeCommands: the row always ends up with the latest status. */
function beat(): Promise<void> {
  if (beating) {
    beatAgain = true;
    return beating;
  }
  beating = (async () => {
    do {
      beatAgain = false;
      if (stopping) return;
      const db = await connection();
      const { stop: reason } = await beatRemoteWorker({ ...me, status }, db);
      if (reason && !stopping) await stop(`stopped: ${reason}`, db);
    } while (beatAgain);
  })()
    // A beat that fails is the next beat's to retry; the row goes stale if the database stays away.
    .catch(() => undefined)
    .finally(() => {
      beating = undefined;
    });
  return beating;
}

/** How long a worker whose server went may take to say so before it ends itself. */
const LAST_WORDS_MS = 1_500;

async function recordServerGone(): Promise<void> {
  const db = await connection();
  await appendEvent(
    db,
    {
      lab: data.lab.id,
      actor: data.name,
      kind: 'worker_stopped',
      resource: data.lab.resource,
      detail: { ...data.detail, reason: 'the app server that ran it stopped, and the process with it' },
    },
    { as: me },
  );
  await markRemoteWorkerStopped(me, db);
}

/*
 * The server that started this worker holds the only write end of the lifeline and never writes:
 * end of file comes when that server's process is gone (an exit, a crash, kill -9). Nobody is left
 * to drive or resume this worker, so it records its end and then ends itself, by SIGKILL: no
 * handler, frozen or not.
 */
if (data.lifelineFd !== undefined) {
  const lifeline = new Socket({ fd: data.lifelineFd, readable: true, writable: false });
  let gone = false;
  const serverGone = () => {
    if (gone) return;
    gone = true;
    // Its lane ends now, in its own name (this thread runs while the main one is frozen), unless the
    // main thread is already recording its own stop; bounded, since the database may be what went.
    const recorded = stopping ? sleep(LAST_WORDS_MS) : recordServerGone().catch(() => undefined);
    void Promise.race([recorded, sleep(LAST_WORDS_MS)]).finally(() => process.kill(process.pid, 'SIGKILL'));
  };
  lifeline.on('end', serverGone);
  lifeline.on('close', serverGone);
  lifeline.on('error', serverGone);
  lifeline.resume();
}

setInterval(() => {
  void beat();
  void takeCommands();
}, HEARTBEAT_EVERY_MS);
void takeCommands();
